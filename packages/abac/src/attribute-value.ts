/**
 * One user attribute as an attribute service writes it in the label language (RDF-ABAC's
 * `AE.parseAttrValue`, what its remote attribute store applies to each string of a lookup answer):
 * `name` or `name=value`, either side a word or a quoted string (`classification='S'`). With
 * `legacy` (RDF-ABAC's default), a string that does not parse and holds none of
 * `= space , ( ) < > { } ! *` (nor a tab or line break) is one attribute name, as labels are read.
 * An attribute-value is a label of one term, so the label parser reads it: quoting and escapes are
 * those of labels.
 */
import { LabelSyntaxError } from './errors.js';
import { parseLabel } from './parser.js';

const LEGACY_FORBIDDEN = /[= ,()<>{}!*\t\n]/;

/** `[name, value]` of an attribute-value (`value` undefined for a bare name); `LabelSyntaxError` otherwise. */
export function parseAttributeValue(text: string, options: { legacy?: boolean } = {}): [string, string | undefined] {
  let failure: LabelSyntaxError | undefined;
  // Not parenthesised: `(a)` is an expression, not an attribute-value.
  if (!text.trimStart().startsWith('(')) {
    try {
      const expr = parseLabel(text);
      if (expr.type === 'attr') return [expr.name, undefined];
      if (expr.type === 'compare' && expr.op === '=') return [expr.name, expr.value];
    } catch (error) {
      if (!(error instanceof LabelSyntaxError)) throw error;
      failure = error;
    }
  }
  if (options.legacy === true && text !== '' && !LEGACY_FORBIDDEN.test(text)) return [text, undefined];
  throw failure ?? new LabelSyntaxError(text, 0, 'an attribute-value is name or name=value, not an expression');
}
