import type { Command } from 'commander';
import { createHttpClient } from '../http/http-client.js';
import type { SendFn } from '../http/types.js';
import { configFile } from '../store/config-path.js';
import { activeProfileName, ProfileStore, type StoreData } from '../store/profile-store.js';
import { fileTokenStore, type TokenStore } from '../store/token-store.js';
import { Client } from '../client/client.js';
import type { SettingOptions } from '../client/settings.js';
import { ResolvedSettings, type Prompter } from '../client/resolve-settings.js';
import { interruptSignal } from './interrupt.js';
import { ioOf, type ContextIo, type Input } from './io.js';
import { loadStyles } from '../util/styles.js';
import { Output } from './output.js';
import { inquirerPrompter, isInteractive } from './prompter.js';
import { terminalText } from '../util/printable.js';

/** Global flags of SPEC §3 as commander parses them. */
export interface GlobalFlags {
  profile?: string;
  json?: boolean;
  verbose?: boolean;
  color?: boolean;
}

/**
 * Everything a command's `run(options, deps)` touches besides its own options, passed in (cli/cli
 * style), so that tests can run a command in-process with fake terminal IO, transport and clock.
 */
export interface CliDeps {
  env: NodeJS.ProcessEnv;
  globals: GlobalFlags;
  out: Output;
  stdin: Input;
  now: () => number;
  store: ProfileStore;
  /** The tokens of the store's profiles (the client's only way to them). */
  tokens: TokenStore;
  send: SendFn;
  /** Present only when interactive (TTYs, no CI). */
  prompter: Prompter | undefined;
  openBrowser: (url: string) => Promise<void>;
  approvedAtOnceWaitMs?: number;
  /** Aborted on Ctrl-C: close what is open and unwind (exit 130). */
  signal: AbortSignal;
  /** Profile name: --profile > DASVC_PROFILE > active profile > default. */
  profileName(data?: StoreData): string;
}

/** Builds the deps of one command from its parsed global flags and the process (or test) I/O. */
export async function createDeps(
  command: Command,
  io: ContextIo = ioOf(command),
): Promise<CliDeps> {
  const env = io.env ?? process.env;
  const stdout = io.stdout ?? process.stdout;
  const stderr = io.stderr ?? process.stderr;
  const all = command.optsWithGlobals<GlobalFlags>();
  const globals: GlobalFlags = {
    profile: all.profile,
    json: all.json,
    verbose: all.verbose,
    color: all.color,
  };
  const style = await loadStyles(globals.color !== false, stderr, env);
  const out = new Output(stdout, stderr, style, Boolean(globals.json));
  const trace = globals.verbose
    ? (line: string) => void stderr.write(`${style.dim(terminalText(line))}\n`)
    : undefined;
  const signal = io.signal ?? interruptSignal();
  return assembleDeps({
    env,
    globals,
    out,
    // Made when a command reads it: creating process.stdin is a part of a start that `rpc`
    // without `-` has no use for.
    get stdin() {
      return io.stdin ?? process.stdin;
    },
    now: Date.now,
    send: createHttpClient({ env, trace, shortLived: true, signal }),
    prompter: isInteractive(
      env,
      io.stdin ?? { isTTY: process.getBuiltinModule('node:tty').isatty(0) },
      stdout,
    )
      ? inquirerPrompter({ color: globals.color !== false })
      : undefined,
    // Loaded on use: only login opens a browser (and node:child_process stays off the rpc path).
    openBrowser:
      io.openBrowser ??
      (async (url) => (await import('../client/browser.js')).openBrowser(url, env)),
    ...(io.approvedAtOnceWaitMs === undefined
      ? {}
      : { approvedAtOnceWaitMs: io.approvedAtOnceWaitMs }),
    signal,
  });
}

/**
 * The deps of a command from its parts (the process's, or a test's fake terminal, transport and
 * clock): the store of DASVC_CONFIG_DIR, and every variable of SPEC §2 (and --profile) checked
 * before any work, in every command.
 */
export function assembleDeps(parts: Omit<CliDeps, 'store' | 'tokens' | 'profileName'>): CliDeps {
  const given = ResolvedSettings.check({ profile: parts.globals.profile }, parts.env);
  const store = new ProfileStore(configFile(parts.env), parts.signal);
  store.tell = (message) => parts.out.info(message);
  // The parts with their getters (stdin), not their values: a spread would read each at once.
  return Object.defineProperties(
    {
      store,
      tokens: fileTokenStore(store),
      profileName: (data?: StoreData) =>
        given.explicit('profile')?.value ?? activeProfileName(undefined, {}, data ?? store.read()),
    },
    Object.getOwnPropertyDescriptors(parts),
  ) as CliDeps;
}

/**
 * The client of one command (src/client/): its options are the command's flags, checked by the
 * settings table before anything else happens; what a person should see goes to stderr.
 */
export function openClient(options: SettingOptions, deps: CliDeps): Client {
  return new Client(
    { ...options, profile: deps.globals.profile },
    {
      env: deps.env,
      send: deps.send,
      now: deps.now,
      profiles: deps.store,
      tokens: deps.tokens,
      tell: (message, level) =>
        level === 'warning' ? deps.out.warn(message) : deps.out.info(message),
      prompter: deps.prompter,
      signal: deps.signal,
      openBrowser: deps.openBrowser,
      ...(deps.approvedAtOnceWaitMs === undefined
        ? {}
        : { approvedAtOnceWaitMs: deps.approvedAtOnceWaitMs }),
    },
  );
}
