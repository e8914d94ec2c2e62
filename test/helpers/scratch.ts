// Scratch folders for tests: every folder made here is removed when the test file ends, so no
// test leaves `dasvc-*` folders behind in the temp dir, whatever it forgets to clean itself.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const made: string[] = [];

/** A new empty folder `<tmp>/<prefix>XXXXXX`, removed after the test file. */
export function scratchDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  made.push(dir);
  return dir;
}

/**
 * Removes every scratch folder made so far: after each test file (test/helpers/per-file.ts, a
 * setup file, which vitest runs for every file; this module is loaded once per worker, since
 * workers keep their modules from file to file).
 */
export function removeScratchDirs(): void {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
}
