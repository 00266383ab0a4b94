/**
 * Per-request label evaluation: one user's attributes, each distinct label evaluated once. A graph
 * server creates one `LabelEvaluator` per request and asks it about every quad's label.
 */
import type { AttributeSet } from './attributes.js';
import { compileLabel } from './compile.js';
import { LabelSyntaxError } from './errors.js';
import type { Hierarchy, HierarchySource } from './hierarchy.js';

export interface LabelEvaluatorOptions {
  /** Bound on the per-instance answer cache; it is emptied when full. Default 65 536. */
  readonly maxCachedLabels?: number;
}

export class LabelEvaluator {
  private readonly answers = new Map<string, boolean>();
  private readonly hierarchies: HierarchySource | undefined;
  private readonly maxCachedLabels: number;

  constructor(
    readonly attributes: AttributeSet,
    hierarchies?: HierarchySource,
    options: LabelEvaluatorOptions = {},
  ) {
    this.hierarchies = hierarchies && memoize(hierarchies);
    this.maxCachedLabels = options.maxCachedLabels ?? 65_536;
  }

  /**
   * Whether the user may see data carrying `label`. A malformed label is visible to no one (fail
   * closed); labels should have been rejected at upload with `validateLabel`. Errors thrown by the
   * hierarchy source propagate, so the caller can fail the request.
   */
  isVisible(label: string): boolean {
    let answer = this.answers.get(label);
    if (answer === undefined) {
      answer = this.evaluate(label);
      if (this.answers.size >= this.maxCachedLabels) this.answers.clear();
      this.answers.set(label, answer);
    }
    return answer;
  }

  private evaluate(label: string): boolean {
    let compiled;
    try {
      compiled = compileLabel(label);
    } catch (err) {
      if (err instanceof LabelSyntaxError) return false;
      throw err;
    }
    return compiled.evaluate(this.attributes, this.hierarchies);
  }
}

/** Look each attribute's hierarchy up at most once per evaluator. */
function memoize(source: HierarchySource): HierarchySource {
  const seen = new Map<string, Hierarchy | undefined>();
  return (name) => {
    if (seen.has(name)) return seen.get(name);
    const hierarchy = source(name);
    seen.set(name, hierarchy);
    return hierarchy;
  };
}
