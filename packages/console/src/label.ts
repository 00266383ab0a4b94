/**
 * The upload page's Security-Label check, as you type: the same parser and the same legacy rule as
 * the graph server (`@ianode/abac` `readLabel`, bundled), so a label the page accepts is one the
 * server parses. Whether the writer may READ the label is the server's check (it answers 400
 * LABEL_NOT_VISIBLE_TO_WRITER); the page cannot know the writer's attributes' hierarchies.
 */
import { LabelSyntaxError, readLabel } from '@ianode/abac';

export type LabelCheck =
  | { state: 'empty' }
  | { state: 'ok'; stored: string }
  | { state: 'error'; message: string; position: number };

export function checkLabel(text: string, legacy: boolean): LabelCheck {
  if (text.trim() === '') return { state: 'empty' };
  try {
    return { state: 'ok', stored: readLabel(text, { legacy }) };
  } catch (error) {
    if (error instanceof LabelSyntaxError) {
      // The position is in the trimmed label; report it in the text as typed.
      const lead = text.length - text.trimStart().length;
      return { state: 'error', message: error.detail, position: error.position + lead };
    }
    throw error;
  }
}
