import { describe, expect, it } from 'vitest';
import { AttributeSet, Hierarchy, LabelEvaluator, type HierarchySource } from '../src/index.js';

describe('SPEC §3 example (default label !)', () => {
  // Labels of the three stored triples.
  const phone = '*';
  const empId9876 = 'employee';
  const empId4321 = '!';
  const labels = [phone, empId9876, empId4321];

  it.each([
    [['engineer', 'contractor'], [true, false, false], 1],
    [['engineer', 'employee'], [true, true, false], 2],
  ])('user %j sees %j', (attributes, visible, count) => {
    const evaluator = new LabelEvaluator(AttributeSet.from(attributes));
    expect(labels.map((l) => evaluator.isVisible(l))).toEqual(visible);
    expect(labels.filter((l) => evaluator.isVisible(l))).toHaveLength(count);
  });
});

describe('LabelEvaluator', () => {
  it('looks each hierarchy up once and answers each label once', () => {
    let lookups = 0;
    const clearance = new Hierarchy('clearance', ['O', 'OS', 'S', 'TS']);
    const source: HierarchySource = (name) => {
      lookups++;
      return name === 'clearance' ? clearance : undefined;
    };
    const evaluator = new LabelEvaluator(AttributeSet.from(['clearance=S']), source);
    for (let i = 0; i < 5; i++) {
      expect(evaluator.isVisible('clearance=OS')).toBe(true);
      expect(evaluator.isVisible('clearance = O')).toBe(true);
      expect(evaluator.isVisible('clearance=TS')).toBe(false);
    }
    expect(lookups).toBe(1);
  });

  it('fails closed on a malformed label', () => {
    const evaluator = new LabelEvaluator(AttributeSet.from(['a']));
    expect(evaluator.isVisible('a &')).toBe(false);
    expect(evaluator.isVisible('')).toBe(false);
    expect(evaluator.isVisible('a')).toBe(true);
  });

  it('lets a failing hierarchy source fail the request', () => {
    const evaluator = new LabelEvaluator(AttributeSet.from(['clearance=S']), () => {
      throw new Error('access service down');
    });
    expect(() => evaluator.isVisible('clearance=OS')).toThrow('access service down');
  });

  it('keeps working past its cache bound', () => {
    const evaluator = new LabelEvaluator(AttributeSet.from(['a']), undefined, { maxCachedLabels: 2 });
    expect(['a', 'b', 'a | b', 'a & b', 'a'].map((l) => evaluator.isVisible(l))).toEqual([true, false, true, false, true]);
  });
});
