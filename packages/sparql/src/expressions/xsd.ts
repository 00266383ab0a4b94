/**
 * XML Schema datatypes the expression library knows (SPARQL 1.1 §17.1 operand data types), their
 * IRIs as strings and as named nodes, and the ranges of the types derived from xsd:integer.
 */
import { namedNode, RDF_LANG_STRING, XSD, XSD_STRING } from '@ianode/rdf';
import type { NamedNode } from '@ianode/rdf';

export { RDF_LANG_STRING, XSD, XSD_STRING };

export const XSD_BOOLEAN = XSD + 'boolean';
export const XSD_INTEGER = XSD + 'integer';
export const XSD_DECIMAL = XSD + 'decimal';
export const XSD_FLOAT = XSD + 'float';
export const XSD_DOUBLE = XSD + 'double';
export const XSD_DATE_TIME = XSD + 'dateTime';
export const XSD_DATE_TIME_STAMP = XSD + 'dateTimeStamp';
export const XSD_DATE = XSD + 'date';
export const XSD_TIME = XSD + 'time';
export const XSD_DURATION = XSD + 'duration';
export const XSD_DAY_TIME_DURATION = XSD + 'dayTimeDuration';
export const XSD_YEAR_MONTH_DURATION = XSD + 'yearMonthDuration';

export const BOOLEAN_NODE: NamedNode = namedNode(XSD_BOOLEAN);
export const INTEGER_NODE: NamedNode = namedNode(XSD_INTEGER);
export const DECIMAL_NODE: NamedNode = namedNode(XSD_DECIMAL);
export const FLOAT_NODE: NamedNode = namedNode(XSD_FLOAT);
export const DOUBLE_NODE: NamedNode = namedNode(XSD_DOUBLE);
export const DATE_TIME_NODE: NamedNode = namedNode(XSD_DATE_TIME);
export const DATE_NODE: NamedNode = namedNode(XSD_DATE);
export const TIME_NODE: NamedNode = namedNode(XSD_TIME);
export const DAY_TIME_DURATION_NODE: NamedNode = namedNode(XSD_DAY_TIME_DURATION);

/** The four primitive numeric types of SPARQL's type promotion (XPath 2.0 §B.1), narrowest first. */
export type NumericType = 'integer' | 'decimal' | 'float' | 'double';

/** Bounds of the types derived from xsd:integer (XSD 1.1 Part 2 §3.4.13 onwards); undefined =
 * unbounded on that side. */
export const INTEGER_RANGES: ReadonlyMap<string, readonly [bigint | undefined, bigint | undefined]> = new Map([
  [XSD_INTEGER, [undefined, undefined]],
  [XSD + 'nonPositiveInteger', [undefined, 0n]],
  [XSD + 'negativeInteger', [undefined, -1n]],
  [XSD + 'long', [-(2n ** 63n), 2n ** 63n - 1n]],
  [XSD + 'int', [-(2n ** 31n), 2n ** 31n - 1n]],
  [XSD + 'short', [-(2n ** 15n), 2n ** 15n - 1n]],
  [XSD + 'byte', [-(2n ** 7n), 2n ** 7n - 1n]],
  [XSD + 'nonNegativeInteger', [0n, undefined]],
  [XSD + 'unsignedLong', [0n, 2n ** 64n - 1n]],
  [XSD + 'unsignedInt', [0n, 2n ** 32n - 1n]],
  [XSD + 'unsignedShort', [0n, 2n ** 16n - 1n]],
  [XSD + 'unsignedByte', [0n, 2n ** 8n - 1n]],
  [XSD + 'positiveInteger', [1n, undefined]],
] as const);

/** The primitive numeric type of a datatype IRI (derived integer types map to 'integer'). */
export function numericTypeOf(datatype: string): NumericType | undefined {
  switch (datatype) {
    case XSD_INTEGER:
      return 'integer';
    case XSD_DECIMAL:
      return 'decimal';
    case XSD_DOUBLE:
      return 'double';
    case XSD_FLOAT:
      return 'float';
    default:
      return INTEGER_RANGES.has(datatype) ? 'integer' : undefined;
  }
}

const NUMERIC_NODES: Record<NumericType, NamedNode> = {
  integer: INTEGER_NODE,
  decimal: DECIMAL_NODE,
  float: FLOAT_NODE,
  double: DOUBLE_NODE,
};

export function numericNode(type: NumericType): NamedNode {
  return NUMERIC_NODES[type];
}
