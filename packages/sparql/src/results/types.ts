/** Shapes shared by the result writers and readers. */
import type { QueryResult, Solution } from '../api.js';

/** A solution sequence or boolean read from a results document: a QueryResult held in memory. */
export type ParsedResults =
  | { type: 'bindings'; variables: string[]; solutions: Solution[] }
  | { type: 'boolean'; value: boolean };

export type BindingsResult = Extract<QueryResult, { type: 'bindings' }>;
export type BooleanResult = Extract<QueryResult, { type: 'boolean' }>;
export type QuadsResult = Extract<QueryResult, { type: 'quads' }>;
