/** Where each service package's entry point is (its own module: `ianode graph --help` and the other
 * service commands resolve it without loading what `ianode up` needs). */
import { createRequire } from 'node:module';
import path from 'node:path';

const require = createRequire(import.meta.url);

/** The entry point (dist/main.js) of a service package. */
export function serviceEntry(pkg: string): string {
  return path.join(path.dirname(require.resolve(pkg)), 'main.js');
}
