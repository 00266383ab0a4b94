export type { RdfFormat } from './format.js';
export { RDF_FORMATS, charsetOf, formatFromContentType, formatFromExtension, isUtf8Charset, mediaTypeEssence } from './format.js';
export type { ParseResult, QuadKeyParser, QuadKeyParserOptions, QuadKeySink } from './types.js';
export { freshBlankNodePrefix } from './blank-node-prefix.js';
export { createQuadKeyParser } from './quad-key-parser.js';
export { parseQuadKeys, parseQuadKeyStream, parseQuads } from './adapters.js';
export { parsePatternTerms, parseTurtleTerm } from './pattern-terms.js';
export { createPatchParser, parsePatch, PatchSyntaxError, type ParsedPatch, type PatchChange, type PatchParseOptions, type PatchParser } from './patch-parser.js';
