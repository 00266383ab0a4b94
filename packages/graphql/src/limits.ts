/**
 * Depth and complexity limits, checked on the operation about to run (after validation, with the
 * request's variables, so `limit: $n` is costed with its value). Introspection fields (`__schema`,
 * `__type`, `__typename`) are free: GraphiQL-style tools must always be able to ask for the schema.
 *
 * Depth: the deepest field nesting (`{ node { id } }` is 2). Complexity: the number of fields the
 * answer could hold if every list were full, each list field counted at its `limit` (default 50).
 */
import { Kind, type DocumentNode, type FragmentDefinitionNode, type OperationDefinitionNode, type SelectionSetNode, type ValueNode } from 'graphql';
import { TraversalError } from './errors.js';
import { DEFAULT_LIMIT, MAX_LIMIT } from './schema.js';

export interface Limits {
  /** Deepest field nesting allowed (default 10). */
  maxDepth: number;
  /** Largest estimated result size, in fields (default 1,000,000). */
  maxComplexity: number;
}

// 1,000,000: graphql-jena's own client query for states (states → relations → entity types and
// properties, every list at its default 50) costs 637,801; 100,000 refused it.
export const DEFAULT_LIMITS: Limits = { maxDepth: 10, maxComplexity: 1_000_000 };

/** Fields that return lists and take `limit` (IES schema). */
const LIST_FIELDS = new Set(['types', 'properties', 'outRels', 'inRels', 'instances', 'nodes', 'getAllEntities', 'states', 'relations', 'search', 'searchWithMetadata']);
/** Unpaged lists (Dataset and Traversal schemas, which take no `limit`). Their length is not known
 * before they run, so the estimate counts each at UNPAGED_FANOUT (a typical fan-out, which keeps a
 * reference client's 3-level traversal under the limit) and the real number of items is bounded
 * while they run (rdf-schemas.ts, `maxItems`, a RESULT_LIMIT error). */
const UNPAGED_FIELDS = new Set(['quads', 'nodes', 'outgoing', 'incoming']);
export const UNPAGED_FANOUT = 20;

interface Cost {
  depth: number;
  complexity: number;
}

/** `paged`: the IES schema, whose lists take `limit`; else the Dataset/Traversal schemas. */
export function checkLimits(document: DocumentNode, operation: OperationDefinitionNode, variables: Record<string, unknown>, limits: Limits, paged = true): void {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const definition of document.definitions) {
    if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
  }
  const intValue = (value: ValueNode | undefined): number | undefined => {
    if (value === undefined) return undefined;
    if (value.kind === Kind.INT) return Number(value.value);
    if (value.kind === Kind.VARIABLE) {
      const given = variables[value.name.value];
      return typeof given === 'number' ? given : undefined;
    }
    return undefined;
  };
  const walk = (set: SelectionSetNode, seen: ReadonlySet<string>): Cost => {
    let depth = 0;
    let complexity = 0;
    for (const selection of set.selections) {
      let inner: Cost;
      if (selection.kind === Kind.FIELD) {
        if (selection.name.value.startsWith('__')) continue;
        const children = selection.selectionSet ? walk(selection.selectionSet, seen) : { depth: 0, complexity: 0 };
        let times = 1;
        if (!paged && UNPAGED_FIELDS.has(selection.name.value)) {
          times = UNPAGED_FANOUT;
        } else if (paged && LIST_FIELDS.has(selection.name.value)) {
          const limit = intValue(selection.arguments?.find((a) => a.name.value === 'limit')?.value) ?? DEFAULT_LIMIT;
          times = Math.max(0, Math.min(MAX_LIMIT, limit));
        }
        inner = { depth: children.depth + 1, complexity: 1 + times * children.complexity };
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        inner = walk(selection.selectionSet, seen);
      } else {
        const fragment = fragments.get(selection.name.value);
        if (fragment === undefined || seen.has(fragment.name.value)) continue; // validation reports these
        inner = walk(fragment.selectionSet, new Set([...seen, fragment.name.value]));
      }
      depth = Math.max(depth, inner.depth);
      complexity += inner.complexity;
    }
    return { depth, complexity };
  };
  const { depth, complexity } = walk(operation.selectionSet, new Set());
  if (depth > limits.maxDepth) {
    throw new TraversalError('DEPTH_LIMIT', `query depth ${depth} is over the limit of ${limits.maxDepth}: ask for fewer nested levels, or split the query`);
  }
  if (complexity > limits.maxComplexity) {
    throw new TraversalError(
      'COMPLEXITY_LIMIT',
      `query complexity ${complexity} is over the limit of ${limits.maxComplexity} (each list counts at its limit, default ${DEFAULT_LIMIT}): give smaller limits on nested lists`,
    );
  }
}
