/**
 * The label table: label text <-> small integer id. Id 0 stands for "the dataset's default label"
 * and is resolved to the configured text at read time (SPEC §3: unlabelled quads take the default),
 * so changing the default re-labels every unlabelled quad without touching the data.
 * Every text is validated with the ABAC parser before it gets an id.
 */
import { validateLabel } from '@ianode/abac';

export const DEFAULT_LABEL_ID = 0;

export class LabelTable {
  private readonly texts: string[] = [''];
  private readonly ids = new Map<string, number>();

  constructor(public defaultLabel: string) {
    validateLabel(defaultLabel);
  }

  get size(): number {
    return this.texts.length;
  }

  /** The id of a label text, creating it when new; throws LabelSyntaxError when malformed. */
  intern(text: string): number {
    const label = text.trim();
    let id = this.ids.get(label);
    if (id !== undefined) return id;
    validateLabel(label);
    id = this.texts.length;
    this.texts.push(label);
    this.ids.set(label, id);
    return id;
  }

  /** The label text of an id (the default label's text for id 0). */
  text(id: number): string {
    if (id === DEFAULT_LABEL_ID) return this.defaultLabel;
    const t = this.texts[id];
    if (t === undefined) throw new RangeError(`unknown label id ${id}`);
    return t;
  }

  /** Texts with id in [from, size), for logs and checkpoints. */
  textsFrom(from: number): string[] {
    return this.texts.slice(Math.max(1, from));
  }

  /** Restore a text at the next id (log replay, checkpoint load). */
  restore(text: string): number {
    const id = this.texts.length;
    this.texts.push(text);
    this.ids.set(text, id);
    return id;
  }

  truncate(size: number): void {
    for (let id = this.texts.length - 1; id >= Math.max(1, size); id--) this.ids.delete(this.texts[id]!);
    this.texts.length = Math.max(1, size);
  }
}
