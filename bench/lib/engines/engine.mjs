/**
 * The shape every engine adapter in this folder exports as `open()`. An adapter loads one
 * N-Triples file, streamed, into a fresh in-process store.
 *
 * @typedef {object} Engine
 * @property {(file: string) => Promise<void>} load read `file` and load all of it; resolves when
 *   the engine considers the load done (for ianode: the durable commit)
 * @property {() => number} size quads now in the store
 * @property {() => Record<string, unknown>} [info] extra facts for the report
 * @property {() => Promise<void>} close release the store and any files
 */

/** Engines by name, in their default order. */
export const ENGINES = ['ianode', 'oxigraph', 'n3'];
