import { spawn, type ChildProcess, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { PassThrough } from 'node:stream';
import { existsSync, readdirSync, readFileSync, readlinkSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, expect } from 'vitest';
import { run as runMain } from '../../src/cli/main.js';
import type { MockOptions } from '../../src/mock/index.js';
import { tracked } from './children.js';
import { standIn } from './cli-browser.mjs';
import { startMockForFile, type FileMock } from './mock-client.js';
import { scratchDir } from './scratch.js';

/** chromium-browser.mjs's `drive`, loaded on first use (playwright-core is not light). */
async function driveChromium(url: string, env: Record<string, string | undefined>): Promise<void> {
  const { drive } = await import('./chromium-browser.mjs');
  await drive(url, env);
}

/** Repository root and the built CLI (tests run what users run: `node bin/dasvc.js`). */
export const ROOT = resolve(import.meta.dirname, '../..');
export const BIN = join(ROOT, 'bin/dasvc.js');
export const STANDIN_BROWSER = join(ROOT, 'test/helpers/cli-browser.mjs');
const STANDIN_COMMAND = `${process.execPath} ${STANDIN_BROWSER}`;
/** The real browser of the e2e tests (DASVC_BROWSER): Chromium driven by playwright-core. */
export const CHROMIUM_BROWSER = join(ROOT, 'test/helpers/chromium-browser.mjs');

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface RunOptions {
  env?: Record<string, string | undefined>;
  input?: string;
  /**
   * Paste mode: called with stderr as it grows until it gives the text to write to stdin (or a
   * promise of it, for a paste that needs a request first: a browser's visit).
   */
  inputWhen?: (stderr: string) => string | Promise<string> | undefined;
  /** The output may legitimately contain a token (`token print`). */
  allowSecrets?: boolean;
  /**
   * runCli only: when the in-process run is interrupted as by Ctrl-C (default 25 s). A spawned run
   * (runCliProcess) has no timer: the test's timeout ends a hang, and the file's end its process.
   */
  timeoutMs?: number;
}

// Everything the file's CLI runs printed, and every secret seen, for the end-of-file leak scan.
import { secrets, transcript } from './leak-state.js';
export { secrets, transcript };

/** A fresh, empty config dir for one test (conf habit: each store its own temp dir). */
export function freshConfigDir(): string {
  return scratchDir('dasvc-cli-');
}

/** Remembers the tokens and secrets in a config dir so the leak scan can look for them. */
export function collectSecrets(configDir: string): void {
  const file = join(configDir, 'config.json');
  // A FIFO in its place (a test of that) would hold this read for ever.
  if (!existsSync(file) || !statSync(file).isFile()) return;
  try {
    const data = JSON.parse(readFileSync(file, 'utf8')) as {
      profiles?: Record<string, Record<string, unknown>>;
    };
    for (const profile of Object.values(data.profiles ?? {})) {
      const tokens = profile.tokens as { accessToken?: string; refreshToken?: string } | undefined;
      for (const value of [profile.clientSecret, tokens?.accessToken, tokens?.refreshToken]) {
        if (typeof value === 'string' && value.length >= 8) secrets.add(value);
      }
    }
  } catch {
    // corrupt on purpose in some tests
  }
}

/** The environment of a CLI run: a clean one (no TTY, CI=1, NO_COLOR unset unless given). */
function cliEnv(configDir: string, given: RunOptions['env'] = {}): Record<string, string> {
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? tmpdir(),
    CI: '1',
    DASVC_CONFIG_DIR: configDir,
  };
  for (const [name, value] of Object.entries(given)) {
    if (value === undefined) delete env[name];
    else env[name] = value;
  }
  return env;
}

/** Records a finished run for the leak scan. */
function recordRun(args: string[], configDir: string, result: CliResult, options: RunOptions) {
  collectSecrets(configDir);
  transcript.push({
    args,
    stdout: result.stdout,
    stderr: result.stderr,
    allowSecrets: Boolean(options.allowSecrets),
  });
}

/**
 * Runs the whole CLI in this process, argv to exit code (`run(argv, io)` of src/cli/main.ts):
 * commander, settings, store, HTTP and report are the real ones; stdout, stderr, stdin, the
 * environment and Ctrl-C are the run's own, so no Node start-up is paid. Tests that need a process
 * (TTY, signals, kill -9, pipes, the exit of a real process) use `runCliProcess`.
 */
export async function runCli(
  args: string[],
  configDir: string,
  options: RunOptions = {},
): Promise<CliResult> {
  const stdin = new PassThrough();
  let stdout = '';
  let stderr = '';
  let written = false;
  const interrupt = new AbortController();
  const timer = setTimeout(
    () => interrupt.abort(new Error('the test run timed out')),
    options.timeoutMs ?? 25_000,
  );
  if (options.input !== undefined) stdin.end(options.input);
  else if (!options.inputWhen) stdin.end();
  const env = cliEnv(configDir, options.env);
  // Chromium pages still open when the CLI is done (it does not wait for its browser): the run
  // ends with them, so that nothing of a test outlives it.
  const browsers: Promise<void>[] = [];
  const io = {
    env,
    stdin,
    signal: interrupt.signal,
    // Longer than any run: a login at an auto-approving service completes by the path its test
    // means (the browser, a paste, or none left), never by the flow's wait running out.
    approvedAtOnceWaitMs: 600_000,
    // The stand-in browser and the Chromium driver run here rather than as processes of their own
    // (as a browser does, on its own: the CLI does not wait for it). Any other browser command is
    // spawned as usual; spawned CLI runs (runCliProcess) spawn these two as well.
    ...(env.BROWSER === STANDIN_COMMAND && !env.DASVC_BROWSER
      ? { openBrowser: (url: string) => (void standIn(url, env), Promise.resolve()) }
      : env.DASVC_BROWSER === CHROMIUM_BROWSER
        ? {
            openBrowser: (url: string) => {
              browsers.push(driveChromium(url, env));
              return Promise.resolve();
            },
          }
        : {}),
    stdout: { isTTY: false, write: (text: string) => (stdout += text) },
    stderr: {
      isTTY: false,
      write: (text: string) => {
        stderr += text;
        if (!written && options.inputWhen) {
          const input = options.inputWhen(stderr);
          if (input !== undefined) {
            written = true;
            void Promise.resolve(input).then((text) => stdin.write(text));
          }
        }
        return true;
      },
    },
  };
  try {
    const code = await runMain([process.execPath, BIN, ...args], io);
    const result = { code, stdout, stderr };
    recordRun(args, configDir, result, options);
    return result;
  } finally {
    clearTimeout(timer);
    stdin.destroy();
    await Promise.all(browsers);
  }
}

/** Runs `node bin/dasvc.js …` as a child process, in the environment of `runCli`. */
export function runCliProcess(
  args: string[],
  configDir: string,
  options: RunOptions = {},
): Promise<CliResult> {
  const env = cliEnv(configDir, options.env);
  return new Promise((resolvePromise, reject) => {
    const child = tracked(
      spawn(process.execPath, [BIN, ...args], { env, stdio: ['pipe', 'pipe', 'pipe'] }),
    );
    let stdout = '';
    let stderr = '';
    let written = false;
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      if (!written && options.inputWhen) {
        const text = options.inputWhen(stderr);
        if (text !== undefined) {
          written = true;
          void Promise.resolve(text).then((input) => child.stdin.write(input));
        }
      }
    });
    child.stdin.on('error', () => undefined);
    if (options.input !== undefined) child.stdin.end(options.input);
    else if (!options.inputWhen) child.stdin.end();
    child.on('error', reject);
    child.on('close', (code) => {
      const result = { code, stdout, stderr };
      recordRun(args, configDir, result, options);
      resolvePromise(result);
    });
  });
}

/** A child of `spawnCli`: the process, and what it has printed so far. */
export type SpawnedCli = ChildProcessWithoutNullStreams & {
  printed(): { stdout: string; stderr: string };
};

/**
 * A running child the test drives itself (Ctrl-C, paste mode). Its output still goes into the
 * transcript and the tokens it stored into the secrets, so the leak scan covers it too.
 */
export function spawnCli(
  args: string[],
  configDir: string,
  env: Record<string, string> = {},
): SpawnedCli {
  const child = tracked(
    spawn(process.execPath, [BIN, ...args], {
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? tmpdir(),
        CI: '1',
        DASVC_CONFIG_DIR: configDir,
        ...env,
      },
      stdio: ['pipe', 'pipe', 'pipe'],
    }),
  );
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  child.on('close', () => {
    collectSecrets(configDir);
    transcript.push({ args, stdout, stderr, allowSecrets: false });
  });
  return Object.assign(child, { printed: () => ({ stdout, stderr }) });
}

/** Whether a child has exited (or been killed). */
function exited(child: ChildProcess): boolean {
  return child.exitCode !== null || child.signalCode !== null;
}

/**
 * Resolves once `child` is reading `fd` (stdin by default): libuv has added it to the process's
 * epoll set, which /proc/<pid>/fdinfo lists (Linux). The event itself, not a sleep nor an idle
 * guess; a child that exits first fails with what it printed, and a hang is the test's timeout.
 */
export async function untilReading(child: SpawnedCli, fd = 0): Promise<void> {
  const pid = child.pid!;
  const watched = () => {
    let entries: string[];
    try {
      entries = readdirSync(`/proc/${pid}/fd`);
    } catch {
      return false; // gone: the exit check says so
    }
    for (const entry of entries) {
      let info = '';
      try {
        if (!readlinkSync(`/proc/${pid}/fd/${entry}`).includes('eventpoll')) continue;
        info = readFileSync(`/proc/${pid}/fdinfo/${entry}`, 'utf8');
      } catch {
        continue; // closed meanwhile
      }
      if (new RegExp(`^tfd:\\s+${fd}\\s`, 'm').test(info)) return true;
    }
    return false;
  };
  while (!watched()) {
    if (exited(child)) {
      const { stdout, stderr } = child.printed();
      throw new Error(
        `process ${pid} exited (${child.exitCode ?? child.signalCode}) before reading fd ${fd}\n` +
          `stdout: ${stdout}\nstderr: ${stderr}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** The leak scan: no secret seen anywhere may appear in output that was not asked for it. */
export function leaks(): string[] {
  const found: string[] = [];
  for (const run of transcript) {
    if (run.allowSecrets) continue;
    for (const secret of secrets) {
      if (run.stdout.includes(secret) || run.stderr.includes(secret))
        found.push(`${run.args.join(' ')} printed ${secret.slice(0, 4)}…`);
    }
  }
  return found;
}

/** After the file's tests: the leak scan must come back empty. */
export function expectNoLeaksAfterAll(): void {
  afterAll(() => {
    expect(leaks()).toEqual([]);
  });
}

/** A quiet mock for the file's CLI runs (see `startMockForFile`); approves as alice unless told otherwise. */
export function startMockForCli(options: MockOptions = { autoApprove: 'alice' }): FileMock {
  return startMockForFile({ log: () => undefined, ...options });
}

/**
 * A config dir logged in to `mock` with `scope` (through the stand-in browser) before the file's
 * tests, by `runner` (in-process `runCli` unless a process is the point); returns its getter.
 */
export function loggedInBeforeAll(
  mock: FileMock,
  scope: string,
  runner: typeof runCli = runCli,
): () => string {
  let dir: string | undefined;
  beforeAll(async () => {
    const fresh = freshConfigDir();
    const login = await runner(loginArgs(mock.url, scope), fresh, { env: browserEnv() });
    expect(login.code, login.stderr).toBe(0);
    dir = fresh;
  });
  return () => {
    if (dir === undefined) throw new Error('not logged in yet (beforeAll has not run)');
    return dir;
  };
}

/** The authorization URL the CLI printed on stderr. */
export function authorizationUrlIn(stderr: string): string | undefined {
  return (
    /(https?:\/\/\S+\/webservice\/authorize\/\?\S+)/.exec(stderr)?.[1] ??
    /(https?:\/\/\S+[?&]response_type=code\S*)/.exec(stderr)?.[1]
  );
}

/** JSON body of a mock control endpoint. */
export async function control<T = unknown>(
  base: string,
  path: string,
  body?: unknown,
  method?: string,
): Promise<T> {
  const response = await fetch(`${base}/_mock/${path}`, {
    method: method ?? (body === undefined ? 'GET' : 'POST'),
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return (await response.json()) as T;
}

/** One request the mock saw (`GET /_mock/journal`). */
export interface JournalEntry {
  method: string;
  path: string;
  query: string;
  status: number;
}

/** The mock's journal of requests, oldest first. */
export async function journalEntries(base: string): Promise<JournalEntry[]> {
  return (await control<{ entries: JournalEntry[] }>(base, 'journal')).entries;
}

/** Empties the mock's journal (`DELETE /_mock/journal`). */
export async function clearJournal(base: string): Promise<void> {
  await control(base, 'journal', undefined, 'DELETE');
}

/** Mints a token pair at the mock without a browser (`POST /_mock/tokens`). */
export async function mintTokens(
  base: string,
  user = 'alice',
  scope = 'crm wiki',
): Promise<{ access_token: string; refresh_token: string; expires_in: string }> {
  const tokens = await control<{ access_token: string; refresh_token: string; expires_in: string }>(
    base,
    'tokens',
    { user, scope },
  );
  secrets.add(tokens.access_token);
  secrets.add(tokens.refresh_token);
  return tokens;
}

/** The login flags for the mock. */
export function loginArgs(base: string, scope = 'crm wiki'): string[] {
  return [
    'login',
    '--base-url',
    base,
    '--client-id',
    'demo-client',
    '--client-secret',
    'demo-secret',
    '--scope',
    scope,
  ];
}

/** Env naming the stand-in browser. */
export function browserEnv(mode = 'follow', log?: string): Record<string, string> {
  return {
    BROWSER: STANDIN_COMMAND,
    STANDIN_MODE: mode,
    ...(log ? { STANDIN_LOG: log } : {}),
  };
}
