// vitest globalSetup: the run fails when a `dasvc-*` temp folder made during it is still there
// at its end (every test removes what it made; scratchDir does it for the file). Made during the
// run: its change time is not older than the run's start.
import { readdirSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

function dasvcEntries(since: number): string[] {
  return readdirSync(tmpdir())
    .filter((name) => name.startsWith('dasvc-'))
    .map((name) => join(tmpdir(), name))
    .filter((path) => {
      try {
        // Folders: what tests make (a file such as .ci/run's own vitest report is not theirs).
        const stat = statSync(path);
        return stat.isDirectory() && stat.ctimeMs >= since;
      } catch {
        return false; // gone meanwhile
      }
    });
}

/** Each project of the config runs this setup; the first teardown checks, once. */
let started: number | undefined;
let checked = false;

export default function setup(): () => void {
  started ??= Date.now() - 1000;
  return () => {
    if (checked) return;
    checked = true;
    const left = dasvcEntries(started!);
    if (left.length > 0) {
      // A teardown's exception is printed but does not fail the run: the exit code does.
      console.error(
        `\nFAIL: ${left.length} temp folder(s) made by this run were left behind: ${left.slice(0, 5).join(', ')}`,
      );
      process.exitCode = 1;
    }
  };
}
