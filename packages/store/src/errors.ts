/** Errors of the store, with a closed set of codes (servers map codes to HTTP statuses). */
export type StoreErrorCode =
  | 'LABELS_GRAPH' // a malformed labels-graph entry in an upload (400)
  | 'STORE_CLOSED' // the store was closed (503)
  | 'STORE_CORRUPT' // a checkpoint or log that cannot be read (500, operator action)
  | 'STORE_IO' // the log could not be written; the transaction was not committed (503)
  | 'STORE_LOCKED'; // the folder is held by another process (DIR/LOCK; 503, operator action)

export class StoreError extends Error {
  constructor(
    readonly code: StoreErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'StoreError';
  }
}
