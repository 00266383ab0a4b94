import { describe, expect, it } from 'vitest';
import { AttributeSet, hierarchiesOf, LabelEvaluator } from '../src/index.js';

describe('hierarchiesOf', () => {
  it('builds hierarchies by name and leaves out the ones Hierarchy refuses (exact values only for them)', () => {
    const hierarchies = hierarchiesOf([
      ['clearance', ['O', 'OS', 'S', 'TS']],
      ['bad name', ['A', 'B']],
      ['twice', ['A', 'A']],
    ]);
    expect([...hierarchies.keys()]).toEqual(['clearance']);
    expect(hierarchies.get('clearance')!.tiers).toEqual(['O', 'OS', 'S', 'TS']);
    const evaluator = new LabelEvaluator(AttributeSet.from(['clearance=S']), (name) => hierarchies.get(name));
    expect(evaluator.isVisible('clearance=OS')).toBe(true);
    expect(evaluator.isVisible('clearance=TS')).toBe(false);
  });
});
