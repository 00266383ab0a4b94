export * from './api.js';
export { openStore, LabelledQuadStore } from './store.js';
export { SnapshotDataset } from './snapshot.js';
export { StoreError, type StoreErrorCode } from './errors.js';
export { DEFAULT_LABEL_ID } from './labels.js';
export { isLabelsGraph, prepareLoad } from './loader.js';
export { verifyStore, recoverStore, type VerifyReport, type RecoveryReport, type Finding } from './verify.js';
export { SharedStateReader, type SharedStoreState, type SharedRun } from './shared-state.js';
export type { ReadColumns } from './snapshot.js';
