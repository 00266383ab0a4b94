/**
 * RDF Patch (text form; https://afs.github.io/rdf-patch/, Jena's `RDFPatchReaderText`) parsed to
 * dictionary keys (terms.ts). Rows, each ended by `.`:
 *
 *   H key value .        header (read, not applied; `id` and `prev` are kept)
 *   TX . / TB .          transaction begin
 *   TC .                 transaction commit
 *   TA .                 transaction abort: the changes since its TX are dropped
 *   PA prefix iri .      prefix add (`"ex"`, `ex` or `ex:`; the IRI as `<iri>` or `"iri"`)
 *   PD prefix .          prefix delete
 *   A s p o [g] .        add a triple (3 terms) or a quad (4 terms)
 *   D s p o [g] .        delete one
 *
 * Terms are N-Triples terms (`<iri>`, `_:label`, `"literal"@lang`, `"literal"^^<dt>`), plus what
 * Jena's tokenizer also reads: `<_:label>` blank nodes, Turtle's short numbers and booleans, `'`
 * strings, and prefixed names once a PA row declared their prefix. IRIs must be absolute (a patch
 * has no base IRI). `#` starts a comment. One row per line (as every RDF Patch writer writes them;
 * a literal's line break is written `\n`).
 *
 * Why by hand: there is no well-kept RDF Patch parser on npm. The terms are read by N3.js's Lexer
 * (the Turtle tokenizer the Turtle parser uses: escapes, literals, numbers, prefixed names),
 * one row at a time; only the row codes and the prefix and header-key slots, which are bare words
 * no Turtle tokenizer reads, are read here.
 *
 * Blank nodes: as in the reference (Jena), a patch's blank node label is the node's system
 * identifier, not a document-scoped label: `_:x` is the store's blank node `_:` + prefix + `x`,
 * with `blankNodePrefix` '' by default. So the same label is the same node within one patch, in
 * every later patch, and on every replica that applies the same patches (which fresh per-load
 * prefixes, as uploads use, would break), and a `D` row can name a blank node a query returned.
 */
import { Lexer } from 'n3';
import { RdfSyntaxError } from '../errors.js';
import { hasScheme } from '../iri.js';
import { XSD_STRING } from '../terms.js';
import { blankLabelEnd, describeChar } from './chars.js';

/** A syntax error in an RDF Patch: line and column (1-based) and what was expected there. */
export class PatchSyntaxError extends RdfSyntaxError {
  constructor(detail: string, line: number, column: number) {
    super(detail, line, column);
    this.name = 'PatchSyntaxError';
  }
}

/** One change row, in dictionary-key form; `g` '' = the default graph. */
export interface PatchChange {
  op: 'add' | 'delete';
  s: string;
  p: string;
  o: string;
  g: string;
  /** The row's line in the patch. */
  line: number;
}

export interface ParsedPatch {
  /** Header rows in order: the key and the value's dictionary key. */
  header: { key: string; value: string }[];
  /** The value of the `H id` row (an IRI without brackets, or a literal's lexical form). */
  id: string | undefined;
  /** The value of the `H prev` row. */
  prev: string | undefined;
  /** The A and D rows to apply, in order, without those of aborted (TA) blocks. */
  changes: PatchChange[];
  /** Change rows applied (`changes.length`). */
  rows: number;
  /** Committed blocks: TX..TC blocks, plus one for changes outside any TX..TC. */
  transactions: number;
  /** TX..TA blocks (their rows are dropped). */
  aborted: number;
}

export interface PatchParseOptions {
  /** Put in front of every blank node label (default '': labels are the store's, see above). */
  blankNodePrefix?: string | undefined;
}

/** The parts of an N3.js lexer token this module reads (the type declarations omit start/end). */
interface Token {
  type: string;
  value: string;
  prefix: string;
  start: number;
  end: number;
}

const CODES = new Set(['H', 'TX', 'TB', 'TC', 'TA', 'PA', 'PD', 'A', 'D']);
const WORD = /[A-Za-z][A-Za-z0-9_-]*/y;
const PREFIX_WORD = /(?:[A-Za-z\u00C0-\uFFFD][A-Za-z0-9_.\-\u00B7\u00C0-\uFFFD]*)?:?/y;

class PatchParserCore implements PatchParser {
  private buf = '';
  private line = 0;
  private done = false;
  private readonly lexer = new Lexer();
  private readonly prefixes = new Map<string, string>();
  private readonly header: { key: string; value: string }[] = [];
  private readonly changes: PatchChange[] = [];
  /** Index in `changes` where the open TX block started, or -1 outside TX..TC. */
  private txStart = -1;
  private txLine = 0;
  private transactions = 0;
  private aborted = 0;
  /** Whether a change or prefix row came outside any TX..TC (an implicit transaction). */
  private implicit = false;
  /** Whether the last row read had a line end, and its length (for the position of the end). */
  private lastRowEnded = true;
  private lastRowLength = 0;

  constructor(private readonly bnodePrefix: string) {}

  feed(chunk: string): void {
    if (this.done) throw new TypeError('feed() called after end()');
    if (this.line === 0 && this.buf === '' && chunk.charCodeAt(0) === 0xfeff) chunk = chunk.slice(1);
    this.buf += chunk;
    // Complete lines only; a final CR may still be followed by LF.
    let end = this.buf.lastIndexOf('\n');
    if (end < 0) {
      const cr = this.buf.lastIndexOf('\r');
      end = cr >= 0 && cr < this.buf.length - 1 ? cr : -1;
    }
    if (end < 0) return;
    const text = this.buf.slice(0, end + 1);
    this.buf = this.buf.slice(end + 1);
    this.lines(text);
  }

  end(): ParsedPatch {
    if (this.done) throw new TypeError('end() called twice');
    this.lines(this.buf);
    this.buf = '';
    this.done = true;
    if (this.txStart >= 0) {
      const [line, column] = this.lastRowEnded ? [this.line + 1, 1] : [this.line, this.lastRowLength + 1];
      throw new PatchSyntaxError(`the patch ends inside the transaction begun on line ${this.txLine} (expected "TC ." or "TA .")`, line, column);
    }
    const transactions = this.transactions + (this.implicit ? 1 : 0);
    const value = (key: string) => {
      const v = this.header.find((h) => h.key === key)?.value;
      if (v === undefined) return undefined;
      if (v.startsWith('<') || v.startsWith('_:')) return v.startsWith('<') ? v.slice(1) : v;
      return v.slice(1, v.lastIndexOf('"'));
    };
    return { header: this.header, id: value('id'), prev: value('prev'), changes: this.changes, rows: this.changes.length, transactions, aborted: this.aborted };
  }

  /** Rows of `text`: complete lines (each ended by a line end), or the final piece at `end`. */
  private lines(text: string): void {
    const pieces = text.split(/\r\n|\r|\n/);
    const ended = /[\r\n]$/.test(text);
    if (ended || text === '') pieces.pop(); // the '' after the last line end
    if (pieces.length === 0) return;
    this.lastRowEnded = ended;
    this.lastRowLength = pieces[pieces.length - 1]!.length;
    for (const row of pieces) {
      this.line++;
      this.row(row);
    }
  }

  private row(text: string): void {
    let i = skipSpace(text, 0);
    if (i >= text.length || text.charCodeAt(i) === 35 /* # */) return;
    const c = text.charCodeAt(i);
    if ((c === 65 /* A */ || c === 68) /* D */ && (text.charCodeAt(i + 1) === 32 || text.charCodeAt(i + 1) === 9)) {
      // The common row, without the regular expression and the code string.
      if (this.change(text, i + 1, c === 65 ? 'add' : 'delete')) return;
    }
    WORD.lastIndex = i;
    const m = WORD.exec(text);
    const code = m?.[0];
    if (code === undefined || !CODES.has(code)) {
      const found = code !== undefined ? `"${code}"` : describeChar(text, i);
      return this.fail(i, `unexpected ${found} (expected a row code: H, TX, TC, TA, PA, PD, A or D)`);
    }
    i += code.length;
    switch (code) {
      case 'H': {
        i = skipSpace(text, i);
        WORD.lastIndex = i;
        const key = WORD.exec(text)?.[0];
        if (key === undefined) return this.fail(i, `unexpected ${describeChar(text, i)} (expected a header key, e.g. id or prev)`);
        const tokens = this.tokens(text, i + key.length);
        const [value] = this.terms(text, tokens, 1, 1, 'a header value');
        this.header.push({ key, value: value!.key });
        return;
      }
      case 'TX':
      case 'TB':
        this.endOfRow(text, i, code);
        if (this.txStart >= 0) return this.fail(skipSpace(text, 0), `a transaction is open since line ${this.txLine} (expected "TC ." or "TA ." before "${code}")`);
        this.txStart = this.changes.length;
        this.txLine = this.line;
        return;
      case 'TC':
      case 'TA':
        this.endOfRow(text, i, code);
        if (this.txStart < 0) return this.fail(skipSpace(text, 0), `"${code}" without a transaction (expected "TX ." before it)`);
        if (code === 'TA') {
          this.changes.length = this.txStart;
          this.aborted++;
        } else this.transactions++;
        this.txStart = -1;
        return;
      case 'PA':
      case 'PD': {
        const { prefix, next } = this.prefixSlot(text, i);
        if (this.txStart < 0) this.implicit = true;
        if (code === 'PD') {
          this.endOfRow(text, next, 'PD prefix');
          this.prefixes.delete(prefix);
          return;
        }
        const tokens = this.tokens(text, next);
        const t = tokens[0]!;
        let iri: string;
        if (t.type === 'IRI' || (t.type === 'literal' && t.prefix === '')) iri = t.value;
        else return this.fail(t.start, `unexpected ${this.describe(text, t)} (expected the prefix's IRI, as <iri> or "iri")`);
        if (!hasScheme(iri)) return this.fail(t.start, `the prefix's IRI ${JSON.stringify(iri)} is not absolute (RDF Patch has no base IRI)`);
        this.dot(text, tokens, 1, 'PA prefix iri');
        this.prefixes.set(prefix, iri);
        return;
      }
      case 'A':
      case 'D': {
        // Not a plain N-Quads row (the fast path in `row` took those): the general path.
        const [s, p, o, g] = this.terms(text, this.tokens(text, i), 3, 4, 'a term');
        if (s!.kind === 'literal') return this.fail(s!.at, 'a literal cannot be a subject');
        if (p!.kind !== 'iri') return this.fail(p!.at, `a ${p!.kind === 'blank' ? 'blank node' : 'literal'} cannot be a predicate`);
        if (g !== undefined && g.kind === 'literal') return this.fail(g.at, 'a literal cannot be a graph name');
        if (this.txStart < 0) this.implicit = true;
        this.changes.push({ op: code === 'A' ? 'add' : 'delete', s: s!.key, p: p!.key, o: o!.key, g: g?.key ?? '', line: this.line });
        return;
      }
    }
  }

  /** An A/D row in plain N-Quads syntax (the fast path); false when it is not one. */
  private change(text: string, i: number, op: 'add' | 'delete'): boolean {
    const n = plainTerms(text, i, this.bnodePrefix);
    if (n < 0) return false;
    // Terms the grammar does not allow where they are: the general path names the error.
    if (KINDS[0] === LITERAL || KINDS[1] !== IRI || (n === 4 && KINDS[3] === LITERAL)) return false;
    if (this.txStart < 0) this.implicit = true;
    this.changes.push({ op, s: KEYS[0]!, p: KEYS[1]!, o: KEYS[2]!, g: n === 4 ? KEYS[3]! : '', line: this.line });
    return true;
  }

  /** The prefix slot of PA / PD: `"ex"`, `ex` or `ex:` (`""`, `:` for the empty prefix). */
  private prefixSlot(text: string, i: number): { prefix: string; next: number } {
    i = skipSpace(text, i);
    if (text.charCodeAt(i) === 34 /* " */) {
      const close = text.indexOf('"', i + 1);
      if (close < 0) return this.fail(i, 'unterminated prefix string (missing closing ")');
      const prefix = text.slice(i + 1, close).replace(/:$/, '');
      if (!/^(?:[A-Za-z\u00C0-\uFFFD][A-Za-z0-9_.\-\u00B7\u00C0-\uFFFD]*)?$/.test(prefix)) return this.fail(i + 1, `${JSON.stringify(prefix)} is not a prefix name`);
      return { prefix, next: close + 1 };
    }
    PREFIX_WORD.lastIndex = i;
    const word = PREFIX_WORD.exec(text)?.[0] ?? '';
    if (word === '') return this.fail(i, `unexpected ${describeChar(text, i)} (expected a prefix name, e.g. "ex" or ex:)`);
    return { prefix: word.replace(/:$/, ''), next: i + word.length };
  }

  /** The N3.js tokens of `text` from `from` on, through the end of the line. */
  private tokens(text: string, from: number): Token[] {
    // Blank out what was read here, so that token positions are the line's columns.
    const rest = ' '.repeat(from) + text.slice(from);
    try {
      return (this.lexer as unknown as { tokenize(input: string): Token[] }).tokenize(rest);
    } catch (error) {
      const context = (error as { context?: { previousToken?: Token } }).context;
      const after = context?.previousToken?.end ?? from;
      const at = skipSpace(rest, after);
      const found = describeChar(rest, at);
      let detail = `unexpected ${found}`;
      if (rest.charCodeAt(at) === 34 || rest.charCodeAt(at) === 39) detail = 'unterminated or malformed literal (a row is one line; write a line break as \\n)';
      else if (rest.charCodeAt(at) === 60) detail = 'malformed IRI (missing ">" or a character not allowed in an IRI)';
      if (context?.previousToken?.type === '.') return this.fail(at, `${detail} (expected the end of the row after ".")`);
      return this.fail(at, `${detail} (expected a term or ".")`);
    }
  }

  /** `min`..`max` terms, then `.` and the end of the row. */
  private terms(text: string, tokens: Token[], min: number, max: number, what: string): { key: string; kind: 'iri' | 'blank' | 'literal'; at: number }[] {
    const out: { key: string; kind: 'iri' | 'blank' | 'literal'; at: number }[] = [];
    let k = 0;
    while (out.length < max) {
      const t = tokens[k]!;
      if (t.type === '.' || t.type === 'eof') break;
      const at = t.start;
      switch (t.type) {
        case 'IRI':
          k++;
          if (t.value.startsWith('_:')) out.push({ key: this.blank(text, t.value.slice(2), at + 3), kind: 'blank', at });
          else out.push({ key: '<' + this.absolute(t.value, at), kind: 'iri', at });
          break;
        case 'prefixed':
          k++;
          out.push({ key: '<' + this.expand(t, at), kind: 'iri', at });
          break;
        case 'blank':
          k++;
          out.push({ key: this.blank(text, t.value, at + 2), kind: 'blank', at });
          break;
        case 'literal': {
          k++;
          const lexical = t.value;
          let key = `"${lexical}"`;
          if (t.prefix !== '') key += '^^' + t.prefix; // a number or boolean: its datatype
          const next = tokens[k]!;
          if (next.type === 'langcode') {
            key += '@' + next.value.toLowerCase();
            k++;
          } else if (next.type === 'typeIRI' || next.type === 'type') {
            const dt = next.type === 'typeIRI' ? this.absolute(next.value, next.start) : this.expand(next, next.start);
            if (dt !== XSD_STRING) key += '^^' + dt;
            k++;
          }
          out.push({ key, kind: 'literal', at });
          break;
        }
        default:
          return this.fail(at, `unexpected ${this.describe(text, t)} (expected ${what}: an IRI, a blank node or a literal)`);
      }
    }
    if (out.length < min) {
      const t = tokens[k]!;
      return this.fail(t.start, `unexpected ${this.describe(text, t)} (expected ${what}${min === max ? '' : `: a row has ${min} or ${max} terms (subject predicate object [graph]), this one ${out.length}`})`);
    }
    this.dot(text, tokens, k, max === 1 ? 'the header value' : out.length === max ? `the ${max}th term` : 'the terms');
    return out;
  }

  /** `.` at tokens[k], then nothing but the end of the line (a comment). */
  private dot(text: string, tokens: Token[], k: number, after: string): void {
    const t = tokens[k]!;
    if (t.type !== '.') return this.fail(t.start, `unexpected ${this.describe(text, t)} (expected "." after ${after})`);
    const next = tokens[k + 1]!;
    if (next.type !== 'eof') return this.fail(next.start, `unexpected ${this.describe(text, next)} (expected the end of the row after ".")`);
  }

  /** `.` (and nothing more) after a code or slot read here. */
  private endOfRow(text: string, i: number, after: string): void {
    i = skipSpace(text, i);
    if (text.charCodeAt(i) !== 46) return this.fail(i, `unexpected ${describeChar(text, i)} (expected "." after ${after})`);
    i = skipSpace(text, i + 1);
    if (i < text.length && text.charCodeAt(i) !== 35) return this.fail(i, `unexpected ${describeChar(text, i)} (expected the end of the row after ".")`);
  }

  private describe(text: string, t: Token): string {
    if (t.type === 'eof') return 'end of line';
    return JSON.stringify(text.slice(t.start, Math.max(t.end, t.start + 1)));
  }

  private blank(text: string, label: string, at: number): string {
    if (label === '' || blankLabelEnd(label, 0) !== label.length) return this.fail(at, `${JSON.stringify(label)} is not a blank node label`);
    return '_:' + this.bnodePrefix + label;
  }

  private absolute(iri: string, at: number): string {
    if (!hasScheme(iri)) return this.fail(at, `relative IRI <${iri}> (RDF Patch has no base IRI: write absolute IRIs)`);
    return iri;
  }

  private expand(t: Token, at: number): string {
    const ns = this.prefixes.get(t.prefix);
    if (ns === undefined) return this.fail(at, `undefined prefix "${t.prefix}:" (expected a PA row declaring it first)`);
    return ns + t.value;
  }

  private fail(at: number, detail: string): never {
    throw new PatchSyntaxError(detail, this.line, at + 1);
  }
}

// The fast path for rows in plain N-Quads syntax (what RDF Patch writers write): absolute IRIs
// and literals without escapes, `_:` blank nodes. Any other row, valid or not, goes to the Lexer
// path, which reads everything else and reports errors.
// eslint-disable-next-line no-control-regex -- IRIREF excludes #x00-#x20 by definition
const PLAIN_IRI = /<[A-Za-z][A-Za-z0-9+.-]*:[^\u0000-\u0020<>"{}|^`\\]*>/y;
const PLAIN_STRING = /"[^"\\\n\r]*"/y;
const PLAIN_LANG = /@[a-zA-Z]+(?:-[a-zA-Z0-9]+)*/y;

const IRI = 0;
const BLANK = 1;
const LITERAL = 2;
/** The keys and kinds `plainTerms` read (reused: the fast path allocates only the keys). */
const KEYS: string[] = ['', '', '', ''];
const KINDS = new Uint8Array(4);

/** The 3 or 4 terms of an A/D row from `i`, then `.` and the row's end, into KEYS and KINDS when
 * all are plain: their number, else -1. Keys are slices of the row where they can be. */
function plainTerms(text: string, i: number, bnodePrefix: string): number {
  let n = 0;
  for (;;) {
    const at = skipSpace(text, i);
    const c = text.charCodeAt(at);
    if (c === 46 /* . */) {
      if (n < 3) return -1;
      const end = skipSpace(text, at + 1);
      return end === text.length || text.charCodeAt(end) === 35 ? n : -1;
    }
    if (n === 4 || at === i) return -1; // too many, or no space before the term
    if (c === 60 /* < */) {
      PLAIN_IRI.lastIndex = at;
      if (!PLAIN_IRI.test(text)) return -1;
      i = PLAIN_IRI.lastIndex;
      KEYS[n] = text.slice(at, i - 1);
      KINDS[n] = IRI;
    } else if (c === 95 /* _ */) {
      if (text.charCodeAt(at + 1) !== 58) return -1;
      const end = blankLabelEnd(text, at + 2);
      if (end < 0) return -1;
      KEYS[n] = bnodePrefix === '' ? text.slice(at, end) : '_:' + bnodePrefix + text.slice(at + 2, end);
      KINDS[n] = BLANK;
      i = end;
    } else if (c === 34 /* " */) {
      PLAIN_STRING.lastIndex = at;
      if (!PLAIN_STRING.test(text)) return -1; // escapes (a long string fails at its third quote below)
      i = PLAIN_STRING.lastIndex;
      let key: string;
      const next = text.charCodeAt(i);
      if (next === 64 /* @ */) {
        PLAIN_LANG.lastIndex = i;
        if (!PLAIN_LANG.test(text)) return -1;
        const end = PLAIN_LANG.lastIndex;
        key = text.slice(at, end);
        const tag = key.slice(i - at);
        if (tag !== tag.toLowerCase()) key = text.slice(at, i) + tag.toLowerCase();
        i = end;
      } else if (next === 94 /* ^ */) {
        if (text.charCodeAt(i + 1) !== 94) return -1;
        PLAIN_IRI.lastIndex = i + 2;
        if (!PLAIN_IRI.test(text)) return -1;
        const end = PLAIN_IRI.lastIndex;
        const dt = text.slice(i + 3, end - 1);
        key = dt === XSD_STRING ? text.slice(at, i) : text.slice(at, i) + '^^' + dt;
        i = end;
      } else key = text.slice(at, i);
      KEYS[n] = key;
      KINDS[n] = LITERAL;
    } else return -1;
    n++;
    const after = text.charCodeAt(i);
    if (i < text.length && after !== 32 && after !== 9 && after !== 46) return -1;
  }
}

function skipSpace(s: string, i: number): number {
  let c = s.charCodeAt(i);
  while (c === 32 || c === 9) c = s.charCodeAt(++i);
  return i;
}

/** A push-style RDF Patch parser: `feed` any split of the text, then `end` for the patch. Both
 * throw PatchSyntaxError; after an error the parser must not be used again. */
export interface PatchParser {
  feed(chunk: string): void;
  end(): ParsedPatch;
}

export function createPatchParser(options: PatchParseOptions = {}): PatchParser {
  const prefix = options.blankNodePrefix ?? '';
  if (typeof prefix !== 'string' || (prefix !== '' && blankLabelEnd(prefix + 'x', 0) !== prefix.length + 1)) {
    throw new TypeError(`blankNodePrefix must be '' or the start of a blank node label: ${JSON.stringify(prefix)}`);
  }
  return new PatchParserCore(prefix);
}

/** Parses a whole RDF Patch text. */
export function parsePatch(text: string, options: PatchParseOptions = {}): ParsedPatch {
  const parser = createPatchParser(options);
  parser.feed(text);
  return parser.end();
}
