/**
 * ianode with access control: slice k of the data loaded with `Security-Label` `l<k>` (10 loads),
 * and every query run on a fresh `store.view(predicate)` (one per request, as the server does),
 * whose predicate evaluates a label with @ianode/abac against the caller's attributes.
 */
import { openIanode } from './ianode-common.mjs';

/** @param {import('./engine.mjs').QueryEngineConfig} config */
export function open(config) {
  return openIanode({
    loads: config.slices.map((file, k) => ({ file, label: `l${k}` })),
    defaultLabel: '!',
    dataset(store, { abac }) {
      const attrs = abac.AttributeSet.from(config.attributes);
      return () => store.view((label) => abac.compileLabel(label).evaluate(attrs));
    },
    describe: { abac: 'on', loads: config.slices.length, attributes: config.attributes },
  });
}
