import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { runCli, type CliResult } from './cli.js';
import { scratchDir } from './scratch.js';

const BIN = fileURLToPath(new URL('../../bin/dasvc.js', import.meta.url));

/**
 * A child's environment: the bare minimum (PATH, HOME, NO_COLOR=1) plus what the test gives, so
 * that nothing of the developer's or CI's environment (a DASVC_* variable, a proxy) leaks in.
 */
function minimalEnv(env: Record<string, string | undefined> = {}): Record<string, string> {
  const out: Record<string, string> = { PATH: process.env.PATH ?? '', NO_COLOR: '1' };
  if (process.env.HOME) out.HOME = process.env.HOME;
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined) delete out[name];
    else out[name] = value;
  }
  return out;
}

/** A `dasvc mock` child process with its output collected. */
export interface MockProcess {
  child: ChildProcessWithoutNullStreams;
  url: string;
  stdout(): string;
  stderr(): string;
  /** Resolves when stdout contains `text` (bounded by the test timeout). */
  waitFor(text: string): Promise<void>;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/**
 * Runs `dasvc <args>` to its end in this process (`runCli`: the binary's own `run(argv, io)`),
 * for the start-up failures of `dasvc mock`: nothing of a process is the point there, and a
 * Node start-up per case is not paid. A mock that starts after all is a failure: the run ends at
 * its time limit, with the exit of Ctrl-C (130).
 */
export function runDasvc(args: string[]): Promise<CliResult> {
  return runCli(args, scratchDir('dasvc-mock-cli-'), { env: { NO_COLOR: '1' }, timeoutMs: 10_000 });
}

/**
 * Starts `dasvc <globals> mock --port 0 <args>` and waits for its first stdout line; `env` is
 * added to the environment (NO_COLOR=1 unless it says otherwise).
 */
export function spawnMock(
  args: string[] = [],
  { globals = [], env = {} }: { globals?: string[]; env?: Record<string, string | undefined> } = {},
): Promise<MockProcess> {
  const child = spawn(process.execPath, [BIN, ...globals, 'mock', '--port', '0', ...args], {
    env: minimalEnv(env),
  });
  let stdout = '';
  let stderr = '';
  const waiters: { text: string; resolve: () => void }[] = [];
  child.stdout.on('data', (c: Buffer) => {
    stdout += c.toString();
    for (const w of [...waiters]) {
      if (stdout.includes(w.text)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve();
      }
    }
  });
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  const exited = new Promise<number | null>((resolve) =>
    child.on('close', (code) => resolve(code)),
  );
  return new Promise((resolve, reject) => {
    const onData = () => {
      const newline = stdout.indexOf('\n');
      if (newline === -1) return;
      child.stdout.off('data', onData);
      const first = stdout.slice(0, newline);
      const url = /^listening on (http:\/\/\S+)$/.exec(first)?.[1];
      if (!url) return reject(new Error(`unexpected first line: ${first}`));
      resolve({
        child,
        url,
        stdout: () => stdout,
        stderr: () => stderr,
        waitFor: (text) =>
          stdout.includes(text)
            ? Promise.resolve()
            : new Promise((r) => waiters.push({ text, resolve: r })),
        stop: (signal = 'SIGTERM') => {
          child.kill(signal);
          return exited;
        },
      });
    };
    child.stdout.on('data', onData);
    void exited.then((code) => reject(new Error(`dasvc mock exited ${code}: ${stderr}`)));
  });
}
