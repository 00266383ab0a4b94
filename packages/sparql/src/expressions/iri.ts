/**
 * IRI reference resolution (RFC 3986 §5.2), without the normalisation `new URL` applies (which
 * would rewrite `http://a` to `http://a/` and percent-encode characters IRIs allow).
 */
import { hasScheme } from '@ianode/rdf';

const PARTS = /^(?:([^:/?#]+):)?(?:\/\/([^/?#]*))?([^?#]*)(?:\?([^#]*))?(?:#(.*))?$/;

export const isAbsoluteIri = hasScheme;

/** RFC 3986 §5.2.4 remove_dot_segments. */
function removeDotSegments(path: string): string {
  const output: string[] = [];
  let input = path;
  while (input.length > 0) {
    if (input.startsWith('../')) input = input.slice(3);
    else if (input.startsWith('./')) input = input.slice(2);
    else if (input.startsWith('/./')) input = input.slice(2);
    else if (input === '/.') input = '/';
    else if (input.startsWith('/../')) {
      input = input.slice(3);
      output.pop();
    } else if (input === '/..') {
      input = '/';
      output.pop();
    } else if (input === '.' || input === '..') input = '';
    else {
      const next = input.indexOf('/', input.startsWith('/') ? 1 : 0);
      const segment = next < 0 ? input : input.slice(0, next);
      output.push(segment);
      input = next < 0 ? '' : input.slice(next);
    }
  }
  return output.join('');
}

/** Resolves `reference` against `base` (RFC 3986 §5.2.2); absolute references come back as is. */
export function resolveIri(reference: string, base: string | undefined): string | undefined {
  if (isAbsoluteIri(reference)) return reference;
  if (base === undefined) return undefined;
  const r = PARTS.exec(reference);
  const b = PARTS.exec(base);
  if (!r || !b || b[1] === undefined) return undefined;
  const [, , rAuthority, rPath = '', rQuery, rFragment] = r;
  const [, bScheme, bAuthority, bPath = '', bQuery] = b;
  let authority: string | undefined;
  let path: string;
  let query: string | undefined;
  if (rAuthority !== undefined) {
    authority = rAuthority;
    path = removeDotSegments(rPath);
    query = rQuery;
  } else {
    authority = bAuthority;
    if (rPath === '') {
      path = bPath;
      query = rQuery ?? bQuery;
    } else {
      if (rPath.startsWith('/')) path = removeDotSegments(rPath);
      else if (bAuthority !== undefined && bPath === '') path = removeDotSegments('/' + rPath);
      else path = removeDotSegments(bPath.slice(0, bPath.lastIndexOf('/') + 1) + rPath);
      query = rQuery;
    }
  }
  return (
    bScheme + ':' +
    (authority !== undefined ? '//' + authority : '') +
    path +
    (query !== undefined ? '?' + query : '') +
    (rFragment !== undefined ? '#' + rFragment : '')
  );
}
