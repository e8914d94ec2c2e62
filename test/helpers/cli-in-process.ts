import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { assembleDeps, type CliDeps } from '../../src/cli/context.js';
import { Output } from '../../src/cli/output.js';
import { plain } from '../../src/util/styles.js';
import type { SendFn } from '../../src/http/types.js';
import type { ProfileStore } from '../../src/store/profile-store.js';

/** A text sink standing in for stdout or stderr. */
export class Sink {
  text = '';
  isTTY = false;
  write(chunk: string): boolean {
    this.text += chunk;
    return true;
  }
}

export interface FakeTerminal {
  deps: CliDeps;
  stdout: Sink;
  stderr: Sink;
  configDir: string;
  store: ProfileStore;
}

export interface FakeOptions {
  /** The HTTP transport (for example appTransport(createMockApp())). */
  send: SendFn;
  env?: NodeJS.ProcessEnv;
  json?: boolean;
  profile?: string;
  now?: () => number;
  configDir?: string;
  openBrowser?: (url: string) => Promise<void>;
}

/**
 * The deps of one command run in-process (cli/cli habit): fake terminal I/O, the given transport
 * and clock, and a store in its own temp dir (`dasvc-*`, removed by `cleanup`).
 */
export function fakeTerminal(options: FakeOptions): FakeTerminal {
  const configDir = options.configDir ?? mkdtempSync(join(tmpdir(), 'dasvc-inproc-'));
  const env = { DASVC_CONFIG_DIR: configDir, ...options.env };
  const stdout = new Sink();
  const stderr = new Sink();
  const globals = {
    ...(options.profile === undefined ? {} : { profile: options.profile }),
    json: Boolean(options.json),
  };
  const deps = assembleDeps({
    env,
    globals,
    out: new Output(stdout, stderr, plain, Boolean(options.json)),
    stdin: (async function* () {})(),
    now: options.now ?? Date.now,
    send: options.send,
    prompter: undefined,
    openBrowser: options.openBrowser ?? (async () => undefined),
    signal: new AbortController().signal,
  });
  return { deps, stdout, stderr, configDir, store: deps.store };
}

/** Removes a fake terminal's config dir. */
export function cleanup(terminal: FakeTerminal): void {
  rmSync(terminal.configDir, { recursive: true, force: true });
}

/** The error a run threw, or undefined when it succeeded. */
export async function failure(run: Promise<unknown>): Promise<unknown> {
  try {
    await run;
  } catch (error) {
    return error;
  }
  return undefined;
}
