import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * The package's own folder, where package.json, fixtures/ and schema/ are: one level up from this
 * file, which lies directly in src/, and from its built code, which lies directly in dist/.
 */
const PACKAGE_ROOT = new URL('../', import.meta.url);

/** The absolute path of a file or folder of the package (`fixtures/`, `schema/`). */
export function packagePath(path: string): string {
  return fileURLToPath(new URL(path, PACKAGE_ROOT));
}

/** The package's version, from its package.json. */
export function packageVersion(): string {
  const text = readFileSync(packagePath('package.json'), 'utf8');
  return (JSON.parse(text) as { version: string }).version;
}
