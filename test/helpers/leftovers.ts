// vitest globalSetup: the run fails when a `dasvc-*` temp folder made during it is still there at
// its end (every test removes what it made; scratchDir does it for the file). The run gets a temp
// folder of its own: TMPDIR points there for the workers and every child they start that keeps
// the environment (os.tmpdir() reads TMPDIR), so what is left there is this run's, however many
// other runs share the machine. The folder goes at the end, whatever it holds.
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Each project of the config runs this setup in a module of its own, so what they share lives in
 * vitest's environment: the folder, and how many setups still have to end. The last teardown
 * (after every project's Chromium is closed) checks and removes the folder.
 */
const DIR = 'DASVC_TEST_RUN_TMPDIR';
const OPEN = 'DASVC_TEST_RUN_SETUPS';

export default function setup(): () => void {
  if (process.env[DIR] === undefined) {
    // Not `dasvc-*` itself: an older checkout's check of the shared temp dir would count it.
    const dir = mkdtempSync(join(tmpdir(), 'vitest-dasvc-run-'));
    // Set before vitest starts its workers, which inherit the environment.
    process.env[DIR] = dir;
    process.env.TMPDIR = dir;
  }
  process.env[OPEN] = String(Number(process.env[OPEN] ?? 0) + 1);
  return () => {
    const open = Number(process.env[OPEN]) - 1;
    process.env[OPEN] = String(open);
    if (open > 0) return;
    const dir = process.env[DIR]!;
    const left = readdirSync(dir).filter((name) => name.startsWith('dasvc-'));
    rmSync(dir, { recursive: true, force: true });
    if (left.length > 0) {
      // A teardown's exception is printed but does not fail the run: the exit code does.
      console.error(
        `\nFAIL: ${left.length} temp folder(s) made by this run were left behind: ${left.slice(0, 5).join(', ')}`,
      );
      process.exitCode = 1;
    }
  };
}
