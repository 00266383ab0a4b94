/**
 * A caller's visibility from its attributes and hierarchies: built the same way by the main thread
 * (../security.ts, from the access service's answer), by the query workers (pool/worker.ts, from the
 * grant a job carries) and by the Kafka connector (kafka/apply.ts, from a CQRS message's writer).
 */
import { AttributeSet, hierarchiesOf, LabelEvaluator } from '@ianode/abac';
import type { Grant } from './pool/protocol.js';

/**
 * The label predicate of `attributes` with `tiers` as hierarchies, and the grant (as data) it is
 * built from. A hierarchy Hierarchy refuses is left out (`hierarchiesOf`: exact values only, less
 * access, never more), of the grant too.
 */
export function visibilityOf(attributes: string[], tiers: Iterable<readonly [string, readonly string[]]>): { visible: (label: string) => boolean; grant: Grant } {
  const hierarchies = hierarchiesOf(tiers);
  const evaluator = new LabelEvaluator(AttributeSet.from(attributes), (name) => hierarchies.get(name));
  return {
    visible: (label) => evaluator.isVisible(label),
    grant: { attributes, hierarchies: [...hierarchies].map(([name, h]) => [name, [...h.tiers]] as [string, string[]]) },
  };
}
