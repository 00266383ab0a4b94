import { describe, expect, it } from 'vitest';
import { AttributeSet, Hierarchy, createHierarchySource } from '../src/index.js';

describe('AttributeSet', () => {
  it.each([
    [['engineer'], 'engineer', ['true']],
    [['engineer=true'], 'engineer', ['true']],
    [['clearance=S'], 'clearance', ['S']],
    [['dept=eng', 'dept=ops'], 'dept', ['eng', 'ops']],
    [['x=a=b'], 'x', ['a=b']],
    [['x='], 'x', ['']],
    [['a', 'a'], 'a', ['true']],
  ])('%j holds for %s the values %j', (strings, name, values) => {
    expect([...(AttributeSet.from(strings).values(name) ?? [])]).toEqual(values);
  });

  it('answers lookups', () => {
    const attrs = AttributeSet.from(['engineer', 'clearance=S', 'clearance=O']);
    expect(attrs.has('engineer')).toBe(true);
    expect(attrs.has('employee')).toBe(false);
    expect(attrs.hasValue('clearance', 'O')).toBe(true);
    expect(attrs.hasValue('clearance', 'TS')).toBe(false);
    expect(attrs.values('missing')).toBeUndefined();
    expect([...attrs.names()]).toEqual(['engineer', 'clearance']);
  });

  it('prints back to strings', () => {
    expect(AttributeSet.from(['engineer=true', 'clearance=S', 'flag=false', 'x=a=b']).toStrings()).toEqual([
      'engineer',
      'clearance=S',
      'flag=false',
      'x=a=b',
    ]);
    expect(AttributeSet.EMPTY.toStrings()).toEqual([]);
  });

  it('rejects an empty name with TypeError', () => {
    expect(() => AttributeSet.from(['=x'])).toThrow(TypeError);
    expect(() => AttributeSet.from([''])).toThrow(TypeError);
  });
});

describe('Hierarchy', () => {
  const clearance = new Hierarchy('clearance', ['O', 'OS', 'S', 'TS']);

  it.each([
    ['O', 0],
    ['OS', 1],
    ['S', 2],
    ['TS', 3],
    ['secret', undefined],
  ])('ranks %s as %s', (value, rank) => {
    expect(clearance.rank(value)).toBe(rank);
  });

  it.each([
    ['S', 'OS', true],
    ['OS', 'OS', true],
    ['O', 'OS', false],
    ['X', 'O', false],
    ['TS', 'X', false],
  ])('holding %s grants %s: %s', (held, required, expected) => {
    expect(clearance.grants(held, required)).toBe(expected);
  });

  it('rejects duplicate tiers and empty names', () => {
    expect(() => new Hierarchy('c', ['a', 'a'])).toThrow(TypeError);
    expect(() => new Hierarchy('', ['a'])).toThrow(TypeError);
  });

  it('is found by name through a source', () => {
    const source = createHierarchySource([clearance]);
    expect(source('clearance')).toBe(clearance);
    expect(source('tier')).toBeUndefined();
  });
});
