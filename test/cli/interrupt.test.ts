// How Ctrl-C and SIGTERM end a command (src/cli/interrupt.ts), in a process of its own: the first
// signal aborts and the command unwinds; a second one ends the process at once; and the same
// signal sent again by another listener of it (conf's writer, through when-exit, does so once its
// cleanup has run) is that signal's echo, not a second Ctrl-C.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tracked } from '../helpers/children.js';
import { ROOT } from '../helpers/cli.js';

/**
 * A command that watches the interrupt signal and takes the given milliseconds to unwind once
 * aborted: 20 s is longer than any test waits, so that only the end at once ends it sooner. With
 * `echo`, another listener sends the signal again, as when-exit does; with `count` as well, a
 * last listener says each delivery, once the handler has taken it.
 */
const HARNESS = `
import { handleInterrupts, interruptSignal } from ${JSON.stringify(join(ROOT, 'src/cli/interrupt.ts'))};
handleInterrupts(60_000);
const signal = interruptSignal();
if (process.argv[2] === 'echo')
  for (const name of ['SIGINT', 'SIGTERM']) process.once(name, () => process.kill(process.pid, name));
let delivered = 0;
if (process.argv[4] === 'count') process.on('SIGINT', () => process.stdout.write(\`got \${++delivered}\\n\`));
signal.addEventListener('abort', () => {
  process.stdout.write('aborted\\n');
  setTimeout(() => {
    process.stdout.write('unwound\\n');
    process.exit(130);
  }, Number(process.argv[3]));
});
setInterval(() => undefined, 1000);
process.stdout.write('ready\\n');
`;

let dir: string;
let harness: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'dasvc-interrupt-'));
  harness = join(dir, 'harness.mjs');
  await build({
    stdin: { contents: HARNESS, resolveDir: ROOT, loader: 'js' },
    outfile: harness,
    bundle: true,
    format: 'esm',
    platform: 'node',
    logLevel: 'warning',
  });
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

/**
 * Runs the harness and sends `signals`, each once the harness has printed what `after` gives for
 * it (by default, the second and later once it has aborted); waits for its end.
 */
async function interrupted(
  mode: 'echo' | 'plain',
  unwindMs: number,
  signals: NodeJS.Signals[],
  after: (i: number) => string = (i) => (i === 0 ? 'ready\n' : 'aborted\n'),
  count = false,
) {
  const child = tracked(
    spawn(process.execPath, [harness, mode, String(unwindMs), count ? 'count' : ''], {
      stdio: ['ignore', 'pipe', 'pipe'],
    }),
  );
  let stdout = '';
  let stderr = '';
  const printed = (text: string) =>
    new Promise<void>((resolve) => {
      const check = () => (stdout.includes(text) ? resolve() : undefined);
      child.stdout.on('data', check);
      check();
    });
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const closed = new Promise<number | null>((resolve) => child.on('close', resolve));
  await printed('ready\n');
  for (const [i, signal] of signals.entries()) {
    await printed(after(i));
    child.kill(signal);
  }
  return { code: await closed, stdout, stderr };
}

describe('Ctrl-C and SIGTERM', () => {
  it('the echo of the first signal from another listener: the command unwinds', async () => {
    for (const signal of ['SIGINT', 'SIGTERM'] as const) {
      const run = await interrupted('echo', 200, [signal]);
      expect(run, signal).toEqual({ code: 130, stdout: 'ready\naborted\nunwound\n', stderr: '' });
    }
  });

  it('a second Ctrl-C ends the process at once, also where an echo was expected', async () => {
    const plain = await interrupted('plain', 20_000, ['SIGINT', 'SIGINT']);
    expect(plain).toEqual({
      code: 130,
      stdout: 'ready\naborted\n',
      stderr: '\ndasvc: interrupted\n',
    });
    // Another signal than the first is never its echo.
    const other = await interrupted('echo', 20_000, ['SIGINT', 'SIGTERM']);
    expect(other.stderr).toBe('\ndasvc: interrupted\n');
    expect(other.stdout).not.toContain('unwound');
    // One echo only: a Ctrl-C after the echo was taken is a second Ctrl-C.
    const afterEcho = await interrupted(
      'echo',
      20_000,
      ['SIGINT', 'SIGINT'],
      (i) => (i === 0 ? 'ready\n' : 'got 2\n'),
      true,
    );
    expect(afterEcho).toEqual({
      code: 130,
      stdout: 'ready\naborted\ngot 1\ngot 2\n',
      stderr: '\ndasvc: interrupted\n',
    });
  });
});
