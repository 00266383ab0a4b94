/**
 * Effective boolean value (SPARQL 1.1 §17.2.2): what FILTER, `!`, `&&`, `||` and IF read.
 */
import type { Term } from '@ianode/rdf';
import { datatypeOf, describe, fail, FALSE, TRUE } from './literals.js';
import { parseNumeric } from './numeric.js';
import { numericTypeOf, XSD_BOOLEAN, XSD_STRING } from './xsd.js';

/** The EBV of a term; throws ExpressionError for IRIs, blank nodes, language-tagged strings and
 * literals of other datatypes. Ill-typed booleans and numerics are false. */
export function effectiveBooleanValue(term: Term): boolean {
  // The results of comparisons and logical operators.
  if (term === TRUE) return true;
  if (term === FALSE) return false;
  if (term.termType === 'Literal') {
    const datatype = datatypeOf(term);
    if (datatype === XSD_BOOLEAN) {
      const value = term.value.trim();
      return value === 'true' || value === '1';
    }
    if (datatype === XSD_STRING) return term.value.length > 0;
    if (numericTypeOf(datatype) !== undefined) {
      const n = parseNumeric(term, datatype);
      if (n === undefined) return false;
      switch (n.type) {
        case 'integer':
          return n.value !== 0n;
        case 'decimal':
          return n.value.m !== 0n;
        default:
          return n.value !== 0 && !Number.isNaN(n.value);
      }
    }
  }
  return fail(`no effective boolean value for ${describe(term)}`);
}
