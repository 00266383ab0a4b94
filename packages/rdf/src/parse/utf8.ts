/**
 * Strict UTF-8 decoding of a byte stream in pieces: each piece is cut before an incomplete
 * trailing sequence (kept for the next one), so a malformed sequence can be located exactly.
 */

export class Utf8DecodeError extends Error {
  /** `text` decodes the bytes before the malformed sequence in the failing piece. */
  constructor(readonly text: string) {
    super('invalid UTF-8 byte sequence');
  }
}

/** How many trailing bytes of `bytes` start a sequence that is not complete yet (0 to 3). */
function incompleteTail(bytes: Uint8Array): number {
  const n = bytes.length;
  for (let back = 1; back <= 3 && back <= n; back++) {
    const b = bytes[n - back]!;
    if (b < 0x80) return 0; // ASCII: nothing pending
    if (b >= 0xc0) {
      const need = b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : 2;
      return back < need ? back : 0;
    }
  }
  return 0;
}

export interface Utf8Decoder {
  /** The text of the complete characters so far; throws Utf8DecodeError on a malformed sequence. */
  decode(bytes: Uint8Array): string;
  /** Whatever is left; throws Utf8DecodeError when the input stopped inside a character. */
  end(): string;
}

export function createUtf8Decoder(): Utf8Decoder {
  // ignoreBOM: a byte order mark is the parsers' business (and only at the very start)
  const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
  let carry: Uint8Array | undefined;

  const strict = (bytes: Uint8Array): string => {
    try {
      return decoder.decode(bytes);
    } catch {
      // Find the longest prefix that decodes (as a stream, so a cut character does not count).
      let lo = 0;
      let hi = bytes.length;
      while (lo < hi) {
        const mid = (lo + hi + 1) >> 1;
        try {
          new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes.subarray(0, mid), { stream: true });
          lo = mid;
        } catch {
          hi = mid - 1;
        }
      }
      throw new Utf8DecodeError(new TextDecoder('utf-8', { ignoreBOM: true }).decode(bytes.subarray(0, lo), { stream: true }));
    }
  };

  return {
    decode(bytes) {
      let all = bytes;
      if (carry) {
        all = new Uint8Array(carry.length + bytes.length);
        all.set(carry);
        all.set(bytes, carry.length);
        carry = undefined;
      }
      const tail = incompleteTail(all);
      if (tail > 0) {
        carry = all.slice(all.length - tail);
        all = all.subarray(0, all.length - tail);
      }
      return all.length === 0 ? '' : strict(all);
    },
    end() {
      if (!carry) return '';
      const rest = carry;
      carry = undefined;
      return strict(rest);
    },
  };
}
