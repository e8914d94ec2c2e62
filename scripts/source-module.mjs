// A module of src/ as a plain `node` process can import it (a script, a bench's worker):
// child process): bundled by esbuild into one file directly in `<package>/.tmp/`, where its
// dependencies resolve from node_modules and src/package-root.ts finds the package one folder up,
// as from src/ and dist/. The caller removes the file.
import { mkdirSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = fileURLToPath(new URL('..', import.meta.url));

/** Bundles `source` (a path under src/) into a new file of `.tmp/`; resolves with its path. */
export async function sourceModule(source) {
  mkdirSync(join(root, '.tmp'), { recursive: true });
  const file = join(root, '.tmp', `${basename(source, '.ts')}-${randomUUID()}.mjs`);
  await build({
    entryPoints: [join(root, source)],
    outfile: file,
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    packages: 'external',
    logLevel: 'warning',
  });
  return file;
}
