import { describe, expect, it } from 'vitest';
import {
  AttributeSet,
  CompiledLabel,
  Hierarchy,
  LabelSyntaxError,
  clearCompiledLabelCache,
  compileLabel,
  createHierarchySource,
  parseLabel,
  validateLabel,
} from '../src/index.js';

const hierarchies = createHierarchySource([
  new Hierarchy('clearance', ['O', 'OS', 'S', 'TS']),
  new Hierarchy('tier', ['bronze', 'silver', 'gold']),
]);

// [label, user attributes, use the hierarchies?, expected]
const cases: [string, string[], boolean, boolean][] = [
  // * and !
  ['*', [], false, true],
  ['*', ['engineer'], false, true],
  ['!', [], false, false],
  ['!', ['engineer', 'employee', 'admin'], true, false],
  // bare attributes
  ['employee', ['employee'], false, true],
  ['employee', ['engineer'], false, false],
  ['employee', [], false, false],
  ['employee', ['employee=true'], false, true],
  ['employee', ['employee=false'], false, false],
  ['employee', ['employee=yes'], false, false],
  ['employee', ['employees'], false, false],
  ['Employee', ['employee'], false, false],
  // and
  ['a & b', ['a', 'b'], false, true],
  ['a & b', ['a'], false, false],
  ['a & b', ['b'], false, false],
  ['a && b', ['a', 'b'], false, true],
  ['a && b', ['b'], false, false],
  ['a & b & c', ['a', 'b', 'c'], false, true],
  ['a & b & c', ['a', 'c'], false, false],
  // or
  ['a | b', ['a'], false, true],
  ['a | b', ['b'], false, true],
  ['a | b', [], false, false],
  ['a || b', ['b'], false, true],
  ['a || b', ['c'], false, false],
  ['a | b | c', ['c'], false, true],
  // precedence: a | (b & c)
  ['a | b & c', ['a'], false, true],
  ['a | b & c', ['b'], false, false],
  ['a | b & c', ['b', 'c'], false, true],
  ['a & b | c', ['c'], false, true],
  ['a & b | c', ['a'], false, false],
  // parentheses
  ['(a | b) & c', ['a'], false, false],
  ['(a | b) & c', ['a', 'c'], false, true],
  ['(a | b) & c', ['b', 'c'], false, true],
  ['a & (b | c)', ['a', 'c'], false, true],
  ['((a))', ['a'], false, true],
  ['(a | b) & (c | d)', ['b', 'd'], false, true],
  ['(a | b) & (c | d)', ['b', 'e'], false, false],
  // =
  ['dept=eng', ['dept=eng'], false, true],
  ['dept=eng', ['dept=ops'], false, false],
  ['dept=eng', ['dept'], false, false],
  ['dept=eng', [], false, false],
  ['dept = eng', ['dept=eng'], false, true],
  ['dept=eng', ['dept=eng=x'], false, false],
  ['dept="eng=x"', ['dept=eng=x'], false, true],
  ['dept=""', ['dept='], false, true],
  // !=
  ['dept!=eng', ['dept=ops'], false, true],
  ['dept!=eng', ['dept=eng'], false, false],
  ['dept!=eng', [], false, false],
  ['dept!=eng', ['other=ops'], false, false],
  ['dept!=eng', ['dept'], false, true],
  ['dept != eng', ['dept=eng', 'dept=ops'], false, true],
  ['dept!=true', ['dept'], false, false],
  ['dept!=true', ['dept=false'], false, true],
  // multi-valued attributes
  ['dept=eng', ['dept=ops', 'dept=eng'], false, true],
  ['dept=eng & dept=ops', ['dept=ops', 'dept=eng'], false, true],
  ['dept=eng & dept=ops', ['dept=eng'], false, false],
  ['dept=hr | dept=ops', ['dept=eng', 'dept=ops'], false, true],
  ['dept=hr', ['dept=eng', 'dept=ops'], false, false],
  ['role=admin', ['role=user', 'role=admin', 'role=audit'], false, true],
  // hierarchies: at, above, below, unknown values
  ['clearance=OS', ['clearance=OS'], true, true],
  ['clearance=OS', ['clearance=S'], true, true],
  ['clearance=OS', ['clearance=TS'], true, true],
  ['clearance=OS', ['clearance=O'], true, false],
  ['clearance=O', ['clearance=O'], true, true],
  ['clearance=TS', ['clearance=S'], true, false],
  ['clearance=TS', ['clearance=TS'], true, true],
  ['clearance=OS', ['clearance=S'], false, false],
  ['clearance=OS', ['clearance=secret'], true, false],
  ['clearance=X', ['clearance=TS'], true, false],
  ['clearance=X', ['clearance=X'], true, true],
  ['clearance=OS', ['clearance=O', 'clearance=S'], true, true],
  ['clearance=OS', [], true, false],
  ['clearance=OS', ['clearance'], true, false],
  ['clearance!=OS', ['clearance=S'], true, true],
  ['clearance!=OS', ['clearance=OS'], true, false],
  ['tier=silver', ['tier=gold'], true, true],
  ['tier=silver', ['tier=bronze'], true, false],
  ['tier=gold & clearance=S', ['tier=gold', 'clearance=TS'], true, true],
  ['tier=gold & clearance=S', ['tier=silver', 'clearance=TS'], true, false],
  ['other=silver', ['other=gold'], true, false],
  // quoted names and values
  ['"has space"', ['has space'], false, true],
  ["'has space'", ['has space'], false, true],
  ['"dept"="R&D"', ['dept=R&D'], false, true],
  ["dept='R&D'", ['dept=R&D'], false, true],
  ['dept="R&D"', ['dept=RD'], false, false],
  ['q="say \\"hi\\""', ['q=say "hi"'], false, true],
  ["q='it\\'s'", ["q=it's"], false, true],
  ['q="a\\\\b"', ['q=a\\b'], false, true],
  ['q="tab\\there"', ['q=tab\there'], false, true],
  ['q="\\u0041"', ['q=A'], false, true],
  ['q="\\U0001F600"', ['q=\u{1F600}'], false, true],
  ['"true"', ['true'], false, true],
  ['"a|b"', ['a'], false, false],
  ['"a|b"', ['a|b'], false, true],
  // booleans
  ['a=true', ['a'], false, true],
  ['a=true', ['a=true'], false, true],
  ['a=true', ['a=false'], false, false],
  ['a=true', [], false, false],
  ['a="true"', ['a'], false, true],
  ['a=false', ['a=false'], false, true],
  ['a=false', ['a'], false, false],
  ['a=false', [], false, false],
  ['a=false', ['a', 'a=false'], false, true],
  // unicode
  ['rôle=ingénieur', ['rôle=ingénieur'], false, true],
  ['rôle=ingénieur', ['role=ingenieur'], false, false],
  ['部門=技術', ['部門=技術'], false, true],
  ['Ελλάδα | Россия', ['Россия'], false, true],
  ['naïve', ['naïve'], false, true],
  // whitespace
  ['  a  &  b  ', ['a', 'b'], false, true],
  ['\ta\n|\rb', ['b'], false, true],
  ['( a )', ['a'], false, true],
  ['a=b', ['a= b'], false, false],
  // words with . - + :
  ['urn:role.admin', ['urn:role.admin'], false, true],
  ['x-y+z', ['x-y+z'], false, true],
  ['level=3', ['level=3'], false, true],
];

describe('CompiledLabel.evaluate', () => {
  it.each(cases)('%j for %j (hierarchies %s) is %s', (label, attributes, useHierarchies, expected) => {
    const compiled = compileLabel(label);
    const attrs = AttributeSet.from(attributes);
    expect(compiled.evaluate(attrs, useHierarchies ? hierarchies : undefined)).toBe(expected);
    // The same answer from the canonical text.
    const again = CompiledLabel.fromExpr(parseLabel(label));
    expect(again.evaluate(attrs, useHierarchies ? hierarchies : undefined)).toBe(expected);
  });
});

describe('compileLabel', () => {
  it('compiles a text once while it is in use, and forgets texts beyond its bound', () => {
    clearCompiledLabelCache();
    const first = compileLabel('a | b');
    expect(compileLabel('a | b')).toBe(first);
    for (let i = 0; i < 10_000; i++) compileLabel(`label${i}`);
    // The most recent texts are still held; the first was dropped (the cache does not grow
    // without bound), and compiling it again gives a new object that answers the same.
    expect(compileLabel('label9999')).toBe(compileLabel('label9999'));
    const again = compileLabel('a | b');
    expect(again).not.toBe(first);
    for (const attrs of [['a'], ['b'], ['c'], []]) {
      expect(again.evaluate(AttributeSet.from(attrs))).toBe(first.evaluate(AttributeSet.from(attrs)));
    }
  });

  it('throws LabelSyntaxError for malformed labels, and validateLabel agrees', () => {
    expect(() => compileLabel('a &')).toThrow(LabelSyntaxError);
    expect(() => validateLabel('(a')).toThrow(LabelSyntaxError);
    expect(() => validateLabel('a | b')).not.toThrow();
  });
});
