import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { PassThrough } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { run as runMain } from '../../src/cli/main.js';
import { tracked } from './children.js';
import { runCli, type CliResult } from './cli.js';
import { trackedRun } from './in-process-mocks.js';
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
export interface MockProcess extends MockOutput {
  child: ChildProcessWithoutNullStreams;
  url: string;
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

/** A mock's output as it comes: its stdout and stderr, text to wait for, its first line's URL. */
interface MockOutput {
  stdout(): string;
  stderr(): string;
  /** Resolves when stdout contains `text` (bounded by the test timeout). */
  waitFor(text: string): Promise<void>;
}

/** Collects a mock's output; `url` settles with its `listening on` line (or fails on another). */
function collectOutput() {
  let stdout = '';
  let stderr = '';
  const waiters: { text: string; resolve: () => void }[] = [];
  let firstLine: ((line: string) => void) | undefined;
  const url = new Promise<string>((resolve, reject) => {
    firstLine = (line) => {
      const listening = /^listening on (http:\/\/\S+)$/.exec(line)?.[1];
      if (listening) resolve(listening);
      else reject(new Error(`unexpected first line: ${line}`));
    };
  });
  const output: MockOutput = {
    stdout: () => stdout,
    stderr: () => stderr,
    waitFor: (text) =>
      stdout.includes(text)
        ? Promise.resolve()
        : new Promise((resolve) => waiters.push({ text, resolve })),
  };
  const out = (text: string) => {
    stdout += text;
    const newline = stdout.indexOf('\n');
    if (firstLine && newline !== -1) {
      firstLine(stdout.slice(0, newline));
      firstLine = undefined;
    }
    for (const w of [...waiters]) {
      if (stdout.includes(w.text)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve();
      }
    }
  };
  const err = (text: string) => {
    stderr += text;
  };
  return { output, url, out, err };
}

/**
 * Starts `dasvc <globals> mock --port 0 <args>` and waits for its first stdout line; `env` is
 * added to the environment (NO_COLOR=1 unless it says otherwise).
 */
export async function spawnMock(
  args: string[] = [],
  { globals = [], env = {} }: { globals?: string[]; env?: Record<string, string | undefined> } = {},
): Promise<MockProcess> {
  const child = tracked(
    spawn(process.execPath, [BIN, ...globals, 'mock', '--port', '0', ...args], {
      env: minimalEnv(env),
    }),
  );
  const { output, url, out, err } = collectOutput();
  child.stdout.on('data', (chunk: Buffer) => out(chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => err(chunk.toString()));
  const exited = new Promise<number | null>((resolve) =>
    child.on('close', (code) => resolve(code)),
  );
  const ended = exited.then((code): never => {
    throw new Error(`dasvc mock exited ${code}: ${output.stderr()}`);
  });
  return {
    ...output,
    child,
    url: await Promise.race([url, ended]),
    stop: (signal = 'SIGTERM') => {
      child.kill(signal);
      return exited;
    },
  };
}

/** A `dasvc mock` run in this process, with its output collected. */
export interface InProcessMock extends MockOutput {
  url: string;
  /** Stops it as Ctrl-C does; resolves with the run's exit code (130) once it has closed. */
  stop(): Promise<number>;
}

/**
 * Runs `dasvc <globals> mock --port 0 <args>` in this process (the CLI's `run(argv, io)`, as
 * `runCli`) and waits for its first stdout line: the mock's output without a Node start-up per
 * test. `env` is its whole environment besides PATH and HOME (NO_COLOR=1 unless it says
 * otherwise); `stop()` stands for Ctrl-C. Signals, exit codes of a process and the bundles stay
 * with `spawnMock`.
 */
export async function startMockInProcess(
  args: string[] = [],
  { globals = [], env = {} }: { globals?: string[]; env?: Record<string, string | undefined> } = {},
): Promise<InProcessMock> {
  const interrupt = new AbortController();
  const { output, url, out, err } = collectOutput();
  const stdin = new PassThrough();
  stdin.end();
  const exited = runMain([process.execPath, BIN, ...globals, 'mock', '--port', '0', ...args], {
    env: minimalEnv(env),
    stdin,
    signal: interrupt.signal,
    stdout: { isTTY: false, write: (text: string) => (out(text), true) },
    stderr: { isTTY: false, write: (text: string) => (err(text), true) },
  });
  const stop = () => {
    interrupt.abort();
    return exited;
  };
  // A test that fails before stop() leaves it running: the file's end stops it.
  trackedRun(stop, exited);
  const ended = exited.then((code): never => {
    throw new Error(`dasvc mock ended ${code}: ${output.stderr()}`);
  });
  try {
    return { ...output, url: await Promise.race([url, ended]), stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
