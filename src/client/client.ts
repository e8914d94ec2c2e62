import type { TokenTypeHint } from '../oauth/token-request.js';
import type { TokenSet } from '../oauth/token-response.js';
import type { ApiAnswer } from '../rpc/jsonrpc.js';
import { sendApi } from './api-send.js';
import type { ClientDeps } from './client-deps.js';
import type { LoginOptions, LoginOutcome } from './login.js';
import { logout, type LogoutOutcome } from './logout.js';
import { ProfileSession } from './profile-session.js';
import { profileStatus } from './profile-status.js';
import type { ResolvedSettings } from './resolve-settings.js';
import type { RevokeAnswer } from './revoke.js';
import { revokeTokens, type RevokeOptions, type RevokeOutcome } from './revoke-tokens.js';
import { batchCall, rpcCall, type BatchCall, type BatchResult } from './rpc-calls.js';
import { currentTokens, type TokenOptions } from './session.js';
import { SETTINGS, type SettingKey, type SettingOptions, type SettingSpec } from './settings.js';
import type { SessionStatus } from './status.js';
import { checkLibraryOptions, type OptionKind } from '../util/library-options.js';
import { redactUrl } from '../util/redact.js';

/** What login() takes; the values it checks itself keep their own messages. */
const LOGIN_OPTIONS: Record<keyof LoginOptions, OptionKind> = {
  openBrowser: {
    is: (value) => typeof value === 'boolean' || typeof value === 'function',
    must: 'a boolean or a function',
  },
  noBrowser: 'boolean',
  // Lines read as they come (`for await`): a stream, or any async iterable of strings.
  pasted: {
    is: (value) => typeof Object(value)[Symbol.asyncIterator] === 'function',
    must: 'an async iterable of lines',
  },
  pastedBesideBrowser: 'boolean',
  port: 'checked',
  pkce: 'boolean',
  timeoutMs: 'checked',
  refreshMargin: 'checked',
  insecureStorage: 'boolean',
};

/**
 * The one client of the CLI and the library (SPEC §1): settings resolved by the table (options >
 * variables > profile) and checked when it is made, tokens from the store refreshed when due and
 * after a 401, under the store's lock. The profile and its session are ProfileSession's; each
 * family of operations is a file of its own.
 */
export class Client {
  private readonly profile: ProfileSession;

  constructor(options: SettingOptions, deps: ClientDeps) {
    this.profile = new ProfileSession(options, deps);
  }

  /**
   * What console.log and JSON.stringify show of a client: the settings it was given (options and
   * variables), never a secret among them, nor what it holds besides (tokens, the environment).
   */
  toJSON(): Record<string, string> {
    const shown: Record<string, string> = {};
    for (const [key, spec] of Object.entries(SETTINGS) as [SettingKey, SettingSpec][]) {
      const given = spec.secret ? undefined : this.profile.given.explicit(key);
      // A URL's secret query parameters (`?access_token=`) are masked as in a trace.
      if (given !== undefined) shown[key] = redactUrl(given.value);
    }
    return shown;
  }

  [Symbol.for('nodejs.util.inspect.custom')](
    _depth: number,
    options: object,
    inspect: (value: unknown, options: object) => string,
  ): string {
    return `DasvcClient ${inspect(this.toJSON(), options)}`;
  }

  /** The profile's name: option > DASVC_PROFILE > the file's active profile > `default`. */
  profileName(): string {
    return this.profile.load().name;
  }

  /** The settings over the profile (read on first use), or over nothing when `withProfile` is false. */
  settings(withProfile = true): ResolvedSettings {
    return this.profile.settings(withProfile);
  }

  /** The token pair to use now, refreshed first when due (SPEC §3), or forced. */
  async tokens(options: TokenOptions = {}): Promise<TokenSet> {
    await this.profile.storedTokens();
    return (await currentTokens(this.profile.session(), options)).tokens;
  }

  /** The access token, refreshed first when within the margin (SPEC §1 `client.accessToken()`). */
  async accessToken(): Promise<string> {
    const explicit = this.profile.given.explicit('token')?.value;
    return explicit ?? (await this.tokens()).accessToken;
  }

  /** Refreshes now and stores the new pair (SERVICE.md §4.3). */
  async refresh(): Promise<TokenSet> {
    return this.tokens({ force: true });
  }

  /** Sends one JSON-RPC body (a call or a batch) to a scope's API; see sendApi. */
  async send(scope: string, body: unknown): Promise<ApiAnswer> {
    return sendApi(this.profile, scope, body);
  }

  /** One call (SPEC §1 `client.rpc`): resolves with `result`, rejects with the JSON-RPC error. */
  async rpc<T = unknown>(scope: string, method: string, params?: unknown): Promise<T> {
    return rpcCall<T>((s, body) => this.send(s, body), scope, method, params);
  }

  /** A batch (SPEC §1 `client.batch`): one answer per call that is not a notification, in call order. */
  async batch(scope: string, calls: readonly BatchCall[]): Promise<BatchResult[]> {
    return batchCall((s, body) => this.send(s, body), scope, calls);
  }

  /** The session's state, never the tokens (SPEC §3 `token status`, SPEC §1 `client.status()`). */
  async status(): Promise<SessionStatus> {
    return profileStatus(this.profile);
  }

  /** Revokes a token at the service (SPEC §3 `token revoke`); see revokeTokens. */
  async revoke(
    options: RevokeOptions = {},
    onRevoked?: (kind: TokenTypeHint, answer: RevokeAnswer | null) => void,
  ): Promise<RevokeOutcome> {
    checkLibraryOptions(options, { token: 'checked', hint: 'checked', all: 'boolean' }, 'revoke()');
    return revokeTokens(this.profile, options, onRevoked);
  }

  /** Logs out (SPEC §3 `logout`); see logout. */
  async logout(options: { forget?: boolean } = {}): Promise<LogoutOutcome> {
    checkLibraryOptions(options, { forget: 'boolean' }, 'logout()');
    return logout(this.profile, options);
  }

  /**
   * The authorization-code flow (SPEC §3 `login`), then the profile's settings and the tokens are
   * stored (in the profiles file, or in this client alone with `store: 'memory'`).
   */
  async login(options: LoginOptions = {}): Promise<LoginOutcome> {
    checkLibraryOptions(options, LOGIN_OPTIONS, 'login()');
    const { deps } = this.profile;
    const { name } = await this.profile.withSecrets();
    // Loaded on use: the flow's listener and PKCE stay off the rpc path.
    const { loginWith } = await import('./login.js');
    const outcome = await loginWith(this.settings(), name, options, deps);
    // Said by the login that stores them, once (SPEC §9); later calls find them in the file.
    if (outcome.secretsUnavailable !== undefined && deps.profiles) {
      const { fileFallbackMessage } = await import('../store/profile-secrets.js');
      deps.tell?.(
        fileFallbackMessage(name, outcome.secretsUnavailable, deps.profiles.file),
        'warning',
      );
    }
    this.profile.loggedIn(outcome.settings);
    return outcome;
  }
}
