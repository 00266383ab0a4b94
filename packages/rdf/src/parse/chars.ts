/**
 * Character classes of the Turtle family grammars (RDF 1.1 Turtle section 6.5), over UTF-16 code
 * units. Supplementary characters (#x10000-#xEFFFF) arrive as surrogate pairs.
 */

/** PN_CHARS_BASE for a BMP code unit that is not a surrogate. */
export function isPnCharsBaseBmp(c: number): boolean {
  if (c < 0x80) return (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a);
  return (
    (c >= 0xc0 && c <= 0xd6) || (c >= 0xd8 && c <= 0xf6) || (c >= 0xf8 && c <= 0x2ff) ||
    (c >= 0x370 && c <= 0x37d) || (c >= 0x37f && c <= 0x1fff) || (c >= 0x200c && c <= 0x200d) ||
    (c >= 0x2070 && c <= 0x218f) || (c >= 0x2c00 && c <= 0x2fef) || (c >= 0x3001 && c <= 0xd7ff) ||
    (c >= 0xf900 && c <= 0xfdcf) || (c >= 0xfdf0 && c <= 0xfffd)
  );
}

/** Code units of PN_CHARS (besides PN_CHARS_U) for non-ASCII: U+00B7, U+0300-U+036F, U+203F-U+2040. */
function isPnCharsExtraNonAscii(c: number): boolean {
  return c === 0xb7 || (c >= 0x300 && c <= 0x36f) || c === 0x203f || c === 0x2040;
}

const FIRST = 1; // PN_CHARS_U | [0-9]   (first character of a blank node label)
const REST = 2; //  PN_CHARS | '.'       (later characters of a blank node label)
const ASCII = new Uint8Array(128);
for (let c = 0; c < 128; c++) {
  const letter = (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a);
  const digit = c >= 0x30 && c <= 0x39;
  if (letter || digit || c === 0x5f) ASCII[c] = FIRST | REST;
  if (c === 0x2d || c === 0x2e) ASCII[c] = REST;
}

/** Length (1 or 2 code units) of the character at `i` if it is in the class, else 0. */
function classLength(s: string, i: number, cls: number): number {
  const c = s.charCodeAt(i);
  if (c < 0x80) return ASCII[c]! & cls ? 1 : 0;
  if (c >= 0xd800 && c <= 0xdb7f) {
    const d = s.charCodeAt(i + 1);
    return d >= 0xdc00 && d <= 0xdfff ? 2 : 0;
  }
  if (isPnCharsBaseBmp(c)) return 1;
  return cls === REST && isPnCharsExtraNonAscii(c) ? 1 : 0;
}

/**
 * The end of the BLANK_NODE_LABEL body (the part after `_:`) starting at `i`, or -1 when the
 * first character cannot start a label. A label never ends with '.', so trailing dots are left
 * for the caller (they end the statement).
 */
export function blankLabelEnd(s: string, i: number): number {
  let n = classLength(s, i, FIRST);
  if (n === 0) return -1;
  let j = i + n;
  let lastNonDot = j;
  while ((n = classLength(s, j, REST)) !== 0) {
    const dot = s.charCodeAt(j) === 0x2e;
    j += n;
    if (!dot) lastNonDot = j;
  }
  return lastNonDot;
}

/** The value of `n` hex digits at `i`, or -1 when one of them is not a hex digit. */
export function hexValue(s: string, i: number, n: number): number {
  let v = 0;
  for (let k = 0; k < n; k++) {
    const c = s.charCodeAt(i + k);
    let d: number;
    if (c >= 0x30 && c <= 0x39) d = c - 0x30;
    else if (c >= 0x41 && c <= 0x46) d = c - 0x37;
    else if (c >= 0x61 && c <= 0x66) d = c - 0x57;
    else return -1;
    v = v * 16 + d;
  }
  return v;
}

/** A quoted character for error messages; `end of line` for line ends and the end of input. */
export function describeChar(s: string, i: number): string {
  if (i >= s.length) return 'end of input';
  const c = s.charCodeAt(i);
  if (c === 10 || c === 13) return 'end of line';
  const ch = s.codePointAt(i)!;
  if (ch < 0x20 || ch === 0x7f) return `control character U+${ch.toString(16).toUpperCase().padStart(4, '0')}`;
  return JSON.stringify(String.fromCodePoint(ch));
}
