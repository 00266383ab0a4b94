/**
 * Errors of the label language. One base class with a closed set of codes (the jose pattern): a
 * server maps `code` to an HTTP status in one table. Misuse of an API (for example a malformed
 * user-attribute string or a duplicate hierarchy tier) throws a plain `TypeError` instead.
 */

/** Every code an `AbacError` may carry. */
export type AbacErrorCode = 'LABEL_SYNTAX';

/** Base class of the package's errors. */
export class AbacError extends Error {
  readonly code: AbacErrorCode;

  constructor(code: AbacErrorCode, message: string) {
    super(message);
    this.name = 'AbacError';
    this.code = code;
  }
}

/**
 * A security label that does not follow the grammar (SPEC §3). `position` is the 0-based offset of
 * the offending token in `label`, counted in UTF-16 code units (a JavaScript string index).
 */
export class LabelSyntaxError extends AbacError {
  override readonly code = 'LABEL_SYNTAX' as const;
  /** 0-based offset in `label` where the problem was found. */
  readonly position: number;
  /** The label text as given. */
  readonly label: string;
  /** The message without the `malformed label at position N: ` prefix. */
  readonly detail: string;

  constructor(label: string, position: number, detail: string) {
    super('LABEL_SYNTAX', `malformed label at position ${position}: ${detail}`);
    this.name = 'LabelSyntaxError';
    this.label = label;
    this.position = position;
    this.detail = detail;
  }
}
