/**
 * Exact xsd:decimal arithmetic: a decimal is `m / 10^s` with a bigint `m` and a scale `s >= 0`,
 * kept normalised (no trailing zero digits in `m` while `s > 0`) so equal values are equal pairs.
 */

export interface Decimal {
  readonly m: bigint;
  readonly s: number;
}

/** Digits after the point kept by division (XPath 2.0 requires at least 18 significant digits). */
const DIVISION_SCALE = 24;

const POW10: bigint[] = [1n];
function pow10(n: number): bigint {
  for (let i = POW10.length; i <= n; i++) POW10.push(POW10[i - 1]! * 10n);
  return POW10[n]!;
}

export function makeDecimal(m: bigint, s: number): Decimal {
  while (s > 0 && m % 10n === 0n) {
    m /= 10n;
    s--;
  }
  return { m, s };
}

export function decimalFromBigint(n: bigint): Decimal {
  return { m: n, s: 0 };
}

const DECIMAL_LEXICAL = /^([+-]?)(\d*)(?:\.(\d*))?$/;

/** Parses an xsd:decimal lexical form (no exponent); undefined when invalid. */
export function parseDecimal(lexical: string): Decimal | undefined {
  const match = DECIMAL_LEXICAL.exec(lexical.trim());
  if (!match) return undefined;
  const intPart = match[2] ?? '';
  const fracPart = match[3] ?? '';
  if (intPart === '' && fracPart === '') return undefined;
  const m = BigInt((intPart || '0') + fracPart);
  return makeDecimal(match[1] === '-' ? -m : m, fracPart.length);
}

/** The exact decimal value of a finite JS number's shortest decimal representation. */
export function decimalFromNumber(x: number): Decimal {
  const text = String(x);
  const e = text.indexOf('e');
  if (e < 0) return parseDecimal(text)!;
  const mantissa = parseDecimal(text.slice(0, e))!;
  const exponent = Number(text.slice(e + 1));
  if (exponent >= 0) {
    const shift = Math.max(0, exponent - mantissa.s);
    return makeDecimal(mantissa.m * pow10(shift), Math.max(0, mantissa.s - exponent));
  }
  return makeDecimal(mantissa.m, mantissa.s - exponent);
}

function align(a: Decimal, b: Decimal): [bigint, bigint, number] {
  if (a.s === b.s) return [a.m, b.m, a.s];
  if (a.s > b.s) return [a.m, b.m * pow10(a.s - b.s), a.s];
  return [a.m * pow10(b.s - a.s), b.m, b.s];
}

export function decimalAdd(a: Decimal, b: Decimal): Decimal {
  const [x, y, s] = align(a, b);
  return makeDecimal(x + y, s);
}

export function decimalSubtract(a: Decimal, b: Decimal): Decimal {
  const [x, y, s] = align(a, b);
  return makeDecimal(x - y, s);
}

export function decimalMultiply(a: Decimal, b: Decimal): Decimal {
  return makeDecimal(a.m * b.m, a.s + b.s);
}

/** a / b rounded half away from zero at DIVISION_SCALE digits; undefined when b is zero. */
export function decimalDivide(a: Decimal, b: Decimal): Decimal | undefined {
  if (b.m === 0n) return undefined;
  // a/b = (a.m * 10^b.s) / (b.m * 10^a.s); keep DIVISION_SCALE + 1 digits, then round the last.
  let num = a.m * pow10(b.s + DIVISION_SCALE + 1);
  let den = b.m * pow10(a.s);
  if (den < 0n) {
    num = -num;
    den = -den;
  }
  const q = num / den;
  const rounded = (q + (q < 0n ? -5n : 5n)) / 10n;
  return makeDecimal(rounded, DIVISION_SCALE);
}

export function decimalNegate(a: Decimal): Decimal {
  return { m: -a.m, s: a.s };
}

export function decimalCompare(a: Decimal, b: Decimal): number {
  const [x, y] = align(a, b);
  return x < y ? -1 : x > y ? 1 : 0;
}

/** The integer part, truncated towards zero. */
export function decimalTruncate(a: Decimal): bigint {
  return a.s === 0 ? a.m : a.m / pow10(a.s);
}

export function decimalFloor(a: Decimal): Decimal {
  if (a.s === 0) return a;
  const t = decimalTruncate(a);
  return decimalFromBigint(a.m < 0n ? t - 1n : t);
}

export function decimalCeil(a: Decimal): Decimal {
  if (a.s === 0) return a;
  const t = decimalTruncate(a);
  return decimalFromBigint(a.m > 0n ? t + 1n : t);
}

/** fn:round: the nearest integer, halves rounded towards positive infinity. */
export function decimalRound(a: Decimal): Decimal {
  return decimalFloor(decimalAdd(a, { m: 5n, s: 1 }));
}

export function decimalToNumber(a: Decimal): number {
  return a.s === 0 ? Number(a.m) : Number(formatDecimal(a));
}

/** The XSD 1.0 canonical form: at least one digit either side of the point (`2.0`, `-0.5`). */
export function formatDecimal(a: Decimal): string {
  const negative = a.m < 0n;
  const digits = (negative ? -a.m : a.m).toString();
  let body: string;
  if (a.s === 0) body = digits + '.0';
  else if (digits.length > a.s) body = digits.slice(0, digits.length - a.s) + '.' + digits.slice(digits.length - a.s);
  else body = '0.' + '0'.repeat(a.s - digits.length) + digits;
  return negative ? '-' + body : body;
}

/** The XPath cast to xs:string: integral values without the point (`2`), others canonical. */
export function decimalToXPathString(a: Decimal): string {
  return a.s === 0 ? a.m.toString() : formatDecimal(a);
}
