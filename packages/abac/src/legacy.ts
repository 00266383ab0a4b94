/**
 * RDF-ABAC's legacy label fallback (its `ABAC.LEGACY`, on by default in the reference): a label
 * that does not parse and holds none of `= space , ( ) < > { } ! *` (nor a tab or line break) is
 * read as ONE attribute name, e.g. `user@host`, `a.b.`, `a:`. ianode stores such a label as the
 * quoted name (`"user@host"`), its canonical form, so evaluation needs no option: the label holds
 * for a user holding that attribute.
 */
import { LabelSyntaxError } from './errors.js';
import { validateLabel } from './compile.js';
import { quote } from './words.js';

/** How labels read from data and headers are parsed. */
export interface LabelReadOptions {
  /** The RDF-ABAC legacy fallback (see above). Off: only the grammar. */
  legacy?: boolean | undefined;
}

const LEGACY_FORBIDDEN = /[= ,()<>{}!*\t\n]/;

/**
 * The label text to store for `text` (trimmed): the text itself when it is a well-formed label;
 * with `legacy`, the quoted attribute name when the fallback applies. Throws the original
 * `LabelSyntaxError` otherwise.
 */
export function readLabel(text: string, options: LabelReadOptions = {}): string {
  const label = text.trim();
  try {
    validateLabel(label);
    return label;
  } catch (error) {
    if (!(error instanceof LabelSyntaxError) || options.legacy !== true || label === '' || LEGACY_FORBIDDEN.test(label)) throw error;
    const quoted = quote(label);
    try {
      validateLabel(quoted);
    } catch {
      throw error;
    }
    return quoted;
  }
}
