/** Thrown by an engine's open() when the engine is not installed or not built (not a failure). */
export class EngineUnavailable extends Error {
  /** @param {string} message */
  constructor(message) {
    super(message);
    this.name = 'EngineUnavailable';
  }
}
