// Scratch folders for tests: every folder made here is removed when the test file ends, so no
// test leaves `dasvc-*` folders behind in the temp dir, whatever it forgets to clean itself.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';

const made: string[] = [];

// Registered once per test file: vitest loads this module afresh for each file.
afterAll(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A new empty folder `<tmp>/<prefix>XXXXXX`, removed after the test file. */
export function scratchDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  made.push(dir);
  return dir;
}
