import { UsageError } from '../errors.js';
import { createHttpClient } from '../http/http-client.js';
import type { SendFn } from '../http/types.js';
import { configFile } from '../store/config-path.js';
import { ProfileStore } from '../store/profile-store.js';
import { fileTokenStore, memoryTokenStore } from '../store/token-store.js';
import { Client } from './client.js';
import type { Tell } from './client-deps.js';
import { SETTINGS, type SettingOptions } from './settings.js';
import { checkLibraryOptions, type OptionKind } from '../util/library-options.js';
import { shown } from '../util/printable.js';
import type { TypedCalls, Untyped } from './typed-api.js';
import type { Env } from '../util/env.js';

/**
 * Options of the programmatic client (SPEC §1): the settings of SPEC §2 named as the flags in
 * camelCase, each falling back to its environment variable and then to the profile.
 */
export interface DasvcOptions extends Omit<SettingOptions, 'params'> {
  /** Where the OAuth parameters go: `query` (SERVICE.md §4, default) or `body`. */
  params?: 'query' | 'body';
  /** The directory of the profiles file (default: DASVC_CONFIG_DIR, the OS config directory). */
  configDir?: string;
  /** `memory` keeps the tokens in this client alone; default: the profiles file, shared with the CLI. */
  store?: 'file' | 'memory';
  /**
   * What a person should see (the login URL, progress; a `warning` when the tokens had to go to
   * the config file for want of an OS credential store); without it nothing is printed.
   */
  tell?: Tell;
  /** The environment to read variables from (default: process.env). */
  env?: Env;
  /** The HTTP transport (default: the CLI's HTTP client with its timeouts and proxy support). */
  send?: SendFn;
  /**
   * The most bytes of one answer's body that the default transport reads (default 64 MiB): past
   * it the call fails with a DasvcError of kind `network` (`response_too_large`).
   */
  maxResponseBytes?: number;
  /** The clock (default: Date.now). */
  now?: () => number;
}

/**
 * The programmatic client (SPEC §1): what `dasvc(options?)` returns. With the `Api` that
 * `dasvc types` declares (`dasvc<Api>()`, SPEC §10), `rpc()` and `batch()` check the scope, the
 * method and its params and return the declared result; without, they take any and return
 * `unknown`.
 */
export type DasvcClient<A = Untyped> = Pick<
  Client,
  'login' | 'accessToken' | 'refresh' | 'revoke' | 'logout' | 'status'
> &
  ([A] extends [Untyped] ? Pick<Client, 'rpc' | 'batch'> : TypedCalls<A>);

/** The options dasvc() knows: the settings, checked as they are resolved, and its own. */
const DASVC_OPTIONS: Record<keyof DasvcOptions, OptionKind> = {
  ...(Object.fromEntries(Object.keys(SETTINGS).map((key) => [key, 'checked'])) as Record<
    keyof SettingOptions,
    OptionKind
  >),
  params: 'checked',
  configDir: 'string',
  store: 'checked',
  tell: 'function',
  env: 'object',
  send: 'function',
  maxResponseBytes: 'checked',
  now: 'function',
};

/**
 * Creates the programmatic client (SPEC §1): the CLI's own core, settings resolved and checked
 * here (a bad one throws a DasvcError of kind `usage` naming the option), tokens in the profiles
 * file shared with the CLI (or in memory), refreshed when due and after a 401.
 */
export function dasvc<A = Untyped>(options: DasvcOptions = {}): DasvcClient<A> {
  checkLibraryOptions(options, DASVC_OPTIONS, 'dasvc()');
  const env = options.env ?? process.env;
  if (options.store !== undefined && options.store !== 'file' && options.store !== 'memory')
    throw new UsageError(`store must be "file" or "memory", got ${shown(options.store)}`, {
      code: 'bad_setting',
    });
  const limit = options.maxResponseBytes;
  if (limit !== undefined && !(Number.isSafeInteger(limit) && limit > 0))
    throw new UsageError(
      `maxResponseBytes must be a whole number of bytes above 0, got ${shown(limit)}`,
      { code: 'bad_setting' },
    );
  const memory = options.store === 'memory';
  const file = new ProfileStore(
    configFile(options.configDir ? { ...env, DASVC_CONFIG_DIR: options.configDir } : env),
  );
  const { tell } = options;
  if (tell) file.tell = (message) => tell(message, 'warning');
  const profiles = memory ? undefined : file;
  const send =
    options.send ??
    createHttpClient({
      env,
      ...(limit === undefined ? {} : { maxResponseBytes: limit }),
    });
  // The declarations are types only (SPEC §10): the one client takes every call they allow.
  return new Client(options, {
    env,
    send,
    now: options.now ?? Date.now,
    profiles,
    tokens: profiles ? fileTokenStore(profiles) : memoryTokenStore(),
    ...(memory ? { settingsFrom: file } : {}),
    ...(options.tell ? { tell: options.tell } : {}),
  }) as unknown as DasvcClient<A>;
}
