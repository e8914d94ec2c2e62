import type { SendFn } from '../http/types.js';
import type { ProfileStore } from '../store/profile-store.js';
import type { TokenStore } from '../store/token-store.js';
import type { Prompter } from './resolve-settings.js';
import type { Env } from '../util/env.js';

/** What a client touches, passed in: the CLI gives the terminal's, the library its defaults. */
export interface ClientDeps {
  env: Env;
  send: SendFn;
  now: () => number;
  /** The profiles file; absent with `store: 'memory'`. */
  profiles: ProfileStore | undefined;
  /**
   * With `store: 'memory'`: the profiles file whose profile still gives settings (SPEC §1: options,
   * then variables, then the profile), read once and never written; its tokens are not taken.
   */
  settingsFrom?: ProfileStore;
  tokens: TokenStore;
  /** What a person should see (the login URL, progress); the library prints nothing itself. */
  tell?: Tell;
  /** Asks for missing settings at login; the CLI gives one only on a terminal. */
  prompter?: Prompter;
  /** Aborts a login or a wait (Ctrl-C). */
  signal?: AbortSignal;
  /** Opens the browser at login when the call gives none. */
  openBrowser?: (url: string) => Promise<void>;
  /**
   * How long a login waits for the browser or a paste once the service approved at once (ms):
   * the login flow's own when absent. Tests set one longer than any run.
   */
  approvedAtOnceWaitMs?: number;
}

/**
 * What a person should see, said to them by the embedder (the CLI: stderr); `warning` marks what
 * went otherwise than asked (the tokens kept in a file for want of an OS credential store).
 */
export type Tell = (message: string, level?: 'warning') => void;
