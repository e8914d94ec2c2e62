import {
  AuthError,
  DasvcError,
  NetworkError,
  sameKind,
  ServiceError,
  UsageError,
} from '../errors.js';
import type { SendFn } from '../http/types.js';
import { apiUrlFor } from '../oauth/endpoints.js';
import type { TokenTypeHint } from '../oauth/token-request.js';
import type { TokenSet } from '../oauth/token-response.js';
import {
  buildApiRequest,
  buildCall,
  processApiResponse,
  rpcErrorFrom,
  type ApiAnswer,
  type JsonRpcErrorObject,
} from '../rpc/jsonrpc.js';
import {
  activeProfileName,
  DEFAULT_PROFILE,
  type Profile,
  type ProfileStore,
  type EndedAccess,
  type StoredTokens,
} from '../store/profile-store.js';
import { secretsLocation, withoutSecrets } from '../store/profile-secrets.js';
import { endedHow, type TokenStore } from '../store/token-store.js';
import type { LoginOptions, LoginOutcome } from './login.js';
import { ResolvedSettings, type Prompter } from './resolve-settings.js';
import { revokeToken, type RevokeAnswer } from './revoke.js';
import {
  currentTokens,
  forgetTokens,
  missingProfile,
  notLoggedIn,
  sessionError,
  usableAccessToken,
  type SessionDeps,
  type TokenOptions,
} from './session.js';
import { sessionStatus, type SessionStatus } from './status.js';
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
}

/** One call of a batch (`client.batch`): ids are given in order, 1…n. */
export interface BatchCall {
  method: string;
  params?: unknown;
  notify?: boolean;
}

/** One answer of a batch, in call order: the result or the JSON-RPC error object. */
export type BatchResult = { result: unknown } | { error: JsonRpcErrorObject };

/** What `revoke` did: the service's confirmed answer per token type. */
export interface RevokeOutcome {
  revoked: Partial<Record<TokenTypeHint, RevokeAnswer>>;
  /** Token types asked for that the profile did not hold. */
  skipped: TokenTypeHint[];
}

/** What `logout` did (best effort: the tokens are forgotten even when revoking failed). */
export interface LogoutOutcome {
  profile: string;
  loggedIn: boolean;
  revoked: Partial<Record<TokenTypeHint, boolean>>;
  /** Why a token could not be revoked (or why nothing could be sent). */
  failures: { kind: TokenTypeHint | 'all'; error: DasvcError }[];
  forgotten: boolean;
}

/**
 * One JSON-RPC call from what a caller (JavaScript too, without the types) handed over: a method
 * name and params that JSON-RPC 2.0 §4.2 allows (an object or an array), else a usage error here
 * rather than the service's -32600 for a call the client built.
 */
function callOf(method: unknown, params: unknown, id: number, notify?: boolean) {
  if (typeof method !== 'string' || method === '') {
    throw new UsageError(
      `rpc: the method must be a non-empty string, got ${JSON.stringify(method)}`,
      { code: 'bad_params' },
    );
  }
  // null stands for none, as undefined does (JavaScript callers write either).
  if (params !== undefined && params !== null && typeof params !== 'object') {
    throw new UsageError(
      `rpc: params must be an object or an array (JSON-RPC 2.0 takes no other), got ${typeof params}`,
      { code: 'bad_params' },
    );
  }
  return buildCall(method, params ?? {}, id, notify);
}

/**
 * The one client of the CLI and the library (SPEC §1): settings resolved by the table (options >
 * variables > profile) and checked when it is made, tokens from the store refreshed when due and
 * after a 401, under the store's lock.
 */
export class Client {
  private readonly given: ResolvedSettings;
  /** The profile's name and settings; `stored`: the profile as read, whose secrets may be loaded. */
  private loaded: { name: string; profile: Profile | undefined; stored?: Profile } | undefined;
  /**
   * With `store: 'memory'`, the settings the last login used (prompted ones included): this
   * client's profile, kept in the client alone, so that refreshes and `status()` know them.
   */
  private memoryProfile: Profile | undefined;

  constructor(
    options: object,
    private readonly deps: ClientDeps,
  ) {
    this.given = ResolvedSettings.check(options, deps.env);
  }

  /** The profile's name: option > DASVC_PROFILE > the file's active profile > `default`. */
  profileName(): string {
    return this.load().name;
  }

  private load(): { name: string; profile: Profile | undefined; stored?: Profile } {
    if (!this.loaded) {
      const explicit = this.given.explicit('profile')?.value;
      if (!this.deps.profiles) {
        let name = explicit ?? DEFAULT_PROFILE;
        let stored: Profile | undefined;
        if (this.memoryProfile === undefined && this.deps.settingsFrom) {
          const data = this.deps.settingsFrom.read();
          name = activeProfileName(explicit, {}, data);
          stored = data.profiles?.[name];
          if (stored) this.memoryProfile = settingsOnly(stored);
        }
        this.loaded = { name, profile: this.memoryProfile, ...(stored ? { stored } : {}) };
      } else {
        const data = this.deps.profiles.read();
        const name = activeProfileName(explicit, {}, data);
        const stored = data.profiles?.[name];
        this.loaded = { name, profile: stored, ...(stored ? { stored } : {}) };
      }
    }
    return this.loaded;
  }

  /**
   * The profile with its client secret readable (the OS store asked, within its deadline), for
   * what sends it: a refresh, a revocation, a login. With `store: 'memory'` the secret is copied
   * into this client's settings.
   */
  private async withSecrets(): Promise<{ name: string; profile: Profile | undefined }> {
    const loaded = this.load();
    const { stored, profile, name } = loaded;
    if (stored) {
      await (this.deps.profiles ?? this.deps.settingsFrom)?.loadSecrets(stored, name);
      if (profile !== stored && profile && profile.clientSecret === undefined) {
        const secret = stored.clientSecret;
        if (secret !== undefined) profile.clientSecret = secret;
      }
    }
    return loaded;
  }

  /** Forgets what was read of the profile, so that the next call reads the file again. */
  private reload(): void {
    this.loaded = undefined;
  }

  /** The settings over the profile (read on first use), or over nothing when `withProfile` is false. */
  settings(withProfile = true): ResolvedSettings {
    const { name, profile } = this.load();
    return withProfile ? this.given.withProfile(profile, name) : this.given;
  }

  /**
   * The profile's stored tokens, or not logged in (exit 3); refused (exit 2) before anything is
   * sent when the settings name another installation than the one that issued them.
   */
  private async storedTokens(): Promise<StoredTokens> {
    const { name } = this.load();
    const tokens = await this.deps.tokens.load(name);
    if (!tokens) throw this.notLoggedIn();
    this.staysWithIssuer();
    return tokens;
  }

  /** Not logged in, naming the profiles that exist when the one named is none of them. */
  private notLoggedIn(): DasvcError {
    const { name, profile } = this.load();
    if (profile !== undefined || !this.deps.profiles) return notLoggedIn(name);
    const named = this.given.explicit('profile');
    const namedBy =
      named === undefined ? undefined : named.source === 'env' ? 'DASVC_PROFILE' : '--profile';
    return notLoggedIn(name, missingProfile(name, this.deps.profiles.read(), namedBy));
  }

  /** How this profile's client ended `token` (replaced by a refresh, revoked), if it remembers. */
  private async endedHere(token: string): Promise<EndedAccess | undefined> {
    try {
      return endedHow(await this.deps.tokens.load(this.load().name), token);
    } catch {
      // Only a better message is at stake: an unreadable store leaves the refusal as it is.
      return undefined;
    }
  }

  /** Throws the usage error of settings that would carry the profile's tokens elsewhere. */
  private staysWithIssuer(): void {
    const refused = this.settings().otherInstallation('tokens');
    if (refused) throw refused;
  }

  private session(): SessionDeps {
    const { name, profile } = this.load();
    return {
      tokens: this.deps.tokens,
      profile: name,
      send: this.deps.send,
      now: this.deps.now,
      refreshMargin: profile?.refreshMargin,
      tell: this.deps.tell,
      refreshSettings: async () => {
        await this.withSecrets();
        const settings = this.settings();
        const client = settings.client();
        const refreshUrl = settings.endpoint('refresh');
        return {
          client,
          refreshUrl,
          placement: settings.placement(),
          ownSession: profile === undefined || storedRefresh(profile, client.clientId, refreshUrl),
          secretFrom: settings.pick('clientSecret')?.source,
        };
      },
    };
  }

  /** The token pair to use now, refreshed first when due (SPEC §3), or forced. */
  async tokens(options: TokenOptions = {}): Promise<TokenSet> {
    await this.storedTokens();
    return (await currentTokens(this.session(), options)).tokens;
  }

  /** The access token, refreshed first when within the margin (SPEC §1 `client.accessToken()`). */
  async accessToken(): Promise<string> {
    const explicit = this.given.explicit('token')?.value;
    return explicit ?? (await this.tokens()).accessToken;
  }

  /** Refreshes now and stores the new pair (SERVICE.md §4.3). */
  async refresh(): Promise<TokenSet> {
    return this.tokens({ force: true });
  }

  /**
   * Sends one JSON-RPC body (a call or a batch) to the scope's API URL (SERVICE.md §4.5) with the
   * explicit token (no store), or the stored one refreshed when due; when the API answers 401 to
   * a token that can be refreshed, refreshes once and sends once more (SPEC §3).
   */
  async send(scope: string, body: unknown): Promise<ApiAnswer> {
    const explicit = this.given.explicit('token')?.value;
    const needProfile =
      explicit === undefined || (!this.given.explicit('apiUrl') && !this.given.explicit('baseUrl'));
    if (explicit === undefined) await this.storedTokens();
    const settings = await this.settings(needProfile).prompted(
      { endpoint: 'api' },
      this.deps.prompter,
    );
    const url = apiUrlFor(settings.endpoint('api'), scope);
    const call = async (token: string): Promise<ApiAnswer> =>
      processApiResponse(await this.deps.send(buildApiRequest(url, token, body)), scope, body);
    if (explicit !== undefined) {
      try {
        return await call(explicit);
      } catch (error) {
        // A refused token given as an option or variable: that is what to fix (issue 9.6).
        const from = this.given.explicit('token')?.source === 'env' ? 'DASVC_TOKEN' : '--token';
        const ended =
          error instanceof AuthError && error.status === 401
            ? await this.endedHere(explicit)
            : undefined;
        if (!ended) throw refusedToken(error, { scope, tokenFrom: from });
        const how = ended.how === 'replaced' ? 'replaced by a refresh' : 'revoked';
        const { name } = this.load();
        throw refusedToken(
          error,
          { scope, tokenFrom: from, profile: name, ended: ended.how },
          `${(error as Error).message}: it is an access token that profile ${name} ${how} at ${new Date(ended.at).toISOString()}`,
        );
      }
    }
    const session = this.session();
    const { tokens } = await currentTokens(session);
    const { name, profile } = this.load();
    // The profile's scope as stored, for a hint that keeps it (issue 9.6); never changed here.
    const about = { scope, profile: name, granted: profile?.scope ?? '' };
    try {
      return await call(tokens.accessToken);
    } catch (error) {
      if (!(error instanceof AuthError) || error.status !== 401 || tokens.refreshToken === null)
        throw refusedToken(error, about);
      let retry;
      try {
        retry = await currentTokens(session, { rejected: tokens.accessToken });
      } catch (refresh) {
        // A refresh the service refused (any OAuth or 4xx error) is told after the 401 it
        // followed (log in again); a client it did not accept, and anything else (5xx, the
        // network, a setting, Ctrl-C, a bug), is that failure, with its own exit code (SPEC §4).
        const refused =
          (refresh instanceof AuthError && refresh.code !== 'invalid_client') ||
          (refresh instanceof ServiceError && (refresh.status ?? 0) < 500);
        if (!refused) throw refresh;
        const then =
          (refresh as DasvcError).code === 'invalid_grant'
            ? refresh.message
            : `the refresh that followed was refused too (${refresh.message})`;
        throw refusedToken(error, about, `${(error as Error).message}, and ${then}`);
      }
      try {
        return await call(retry.tokens.accessToken);
      } catch (again) {
        throw refusedToken(again, about);
      }
    }
  }

  /** One call (SPEC §1 `client.rpc`): resolves with `result`, rejects with the JSON-RPC error. */
  async rpc<T = unknown>(scope: string, method: string, params?: unknown): Promise<T> {
    const answer = await this.send(scope, callOf(method, params, 1));
    if (answer.kind === 'none') return undefined as T;
    const error = rpcErrorFrom(answer.body);
    if (error) throw error;
    return (answer.body as { result: T }).result;
  }

  /** A batch (SPEC §1 `client.batch`): one answer per call that is not a notification, in call order. */
  async batch(scope: string, calls: readonly BatchCall[]): Promise<BatchResult[]> {
    if (!Array.isArray(calls) || calls.length === 0)
      throw new UsageError('batch: give a non-empty array of calls', { code: 'bad_params' });
    const body = calls.map((c, i) => callOf(c.method, c.params, i + 1, c.notify));
    const answer = await this.send(scope, body);
    // A batch refused as a whole is one error object (JSON-RPC 2.0 §6), not an array (the answer
    // check lets nothing else through).
    if (answer.kind === 'json' && !Array.isArray(answer.body)) throw rpcErrorFrom(answer.body)!;
    const responses = answer.kind === 'none' ? [] : (answer.body as { id?: unknown }[]);
    const out: BatchResult[] = [];
    body.forEach((call) => {
      if (call.id === undefined) return;
      const response = responses.find((r) => r.id === call.id) as Record<string, unknown>;
      const error = rpcErrorFrom(response);
      out.push(error ? { error: error.rpcError } : { result: response.result });
    });
    return out;
  }

  /** The session's state, never the tokens (SPEC §3 `token status`, SPEC §1 `client.status()`). */
  async status(): Promise<SessionStatus> {
    const { name, profile } = this.load();
    const tokens = await this.deps.tokens.load(name);
    const memory = this.deps.profiles === undefined;
    // The session's own settings: the profile's (with `store: 'memory'`, those of the client's
    // login); before any login, the settings given, when they are valid (status never fails on
    // them: it reports, it does not call).
    const shown = profile ?? this.givenSettingsShown();
    return sessionStatus(name, shown, tokens, this.deps.now(), memory ? 'memory' : undefined);
  }

  /** The base URL, client id and scope given (options, variables), or nothing when one is bad. */
  private givenSettingsShown(): Profile | undefined {
    try {
      const settings = this.settings();
      const shown: Profile = {};
      for (const key of ['baseUrl', 'clientId', 'scope'] as const) {
        const value = settings.value(key);
        if (value !== undefined) shown[key] = value;
      }
      return shown;
    } catch {
      return undefined;
    }
  }

  /**
   * Revokes a token at the service (SERVICE.md §4.4, SPEC §3 `token revoke`): `token` (no store
   * needed), else the stored access token (or `hint: 'refresh_token'`), or both with `all`, which
   * are then forgotten. `onRevoked` hears each confirmed answer as it comes (null: the profile
   * held no token of that type, skipped).
   */
  async revoke(
    options: { token?: string; hint?: TokenTypeHint; all?: boolean } = {},
    onRevoked?: (kind: TokenTypeHint, answer: RevokeAnswer | null) => void,
  ): Promise<RevokeOutcome> {
    const hint = options.hint;
    if (hint !== undefined && hint !== 'access_token' && hint !== 'refresh_token')
      throw new UsageError(
        `--hint must be access_token or refresh_token, got ${JSON.stringify(hint)}`,
        { code: 'bad_hint' },
      );
    const explicit = options.token ?? this.given.explicit('token')?.value;
    if (explicit !== undefined) {
      if (options.all)
        throw new UsageError(
          '--all revokes the stored tokens; it cannot be combined with --token/DASVC_TOKEN',
          { code: 'bad_flags' },
        );
      // The store is consulted only for what options and env leave open: CI needs no config.
      const needStore =
        !this.given.explicit('clientId') ||
        !this.given.explicit('clientSecret') ||
        (!this.given.explicit('baseUrl') && !this.given.explicit('revokeUrl'));
      const kind = hint ?? 'access_token';
      if (needStore) await this.withSecrets();
      const settings = await this.settings(needStore).prompted(
        { endpoint: 'revoke', client: true },
        this.deps.prompter,
      );
      const answer = await revokeToken(this.deps.send, settings, explicit, kind);
      onRevoked?.(kind, answer);
      return { revoked: { [kind]: answer }, skipped: [] };
    }
    const { name } = this.load();
    const tokens = await this.storedTokens();
    // The access token first: revoking the refresh token often ends it too, and an installation
    // that refuses unknown tokens (the revokeUnknownToken quirk, SPEC §7) would then refuse it.
    const which: TokenTypeHint[] = options.all
      ? ['access_token', 'refresh_token']
      : [hint ?? 'access_token'];
    const stored = (kind: TokenTypeHint) =>
      kind === 'refresh_token' ? tokens.refreshToken : usableAccessToken(tokens);
    if (which.every((kind) => !stored(kind))) {
      const already = tokens.accessToken === null && which.includes('access_token');
      throw sessionError(
        name,
        `profile ${name} holds no ${which.join(' or ')} to revoke${already ? ' (its access token was revoked already)' : ''}`,
        'no_stored_token',
      );
    }
    await this.withSecrets();
    const settings = this.settings();
    const outcome: RevokeOutcome = { revoked: {}, skipped: [] };
    try {
      for (const kind of which) {
        const token = stored(kind);
        if (!token) {
          outcome.skipped.push(kind);
          onRevoked?.(kind, null);
          continue;
        }
        const answer = await revokeToken(this.deps.send, settings, token, kind);
        outcome.revoked[kind] = answer;
        onRevoked?.(kind, answer);
      }
    } finally {
      // What the service confirmed is forgotten even when a later call failed; a revoked refresh
      // token ends its access token too (RFC 7009 §2.1).
      if (outcome.revoked.refresh_token) await forgetTokens(this.deps.tokens, name, 'all');
      else if (outcome.revoked.access_token)
        await forgetTokens(this.deps.tokens, name, 'access', this.deps.now());
    }
    return outcome;
  }

  /**
   * Logs out (SPEC §3 `logout`): revokes the access token, then the refresh token, then forgets
   * both and the client secret (SPEC §9). When the service could not be reached or refused, the
   * logout stops there, the tokens are kept (they may still be valid there) and the call fails
   * with the first failure's kind (SPEC §1: failures are DasvcErrors), unless `forget`: then they
   * are forgotten anyway and the failures are reported in the outcome. Idempotent: logging out
   * twice is not an error.
   */
  async logout(options: { forget?: boolean } = {}): Promise<LogoutOutcome> {
    const { name } = this.load();
    const tokens = await this.deps.tokens.load(name);
    const outcome: LogoutOutcome = {
      profile: name,
      loggedIn: Boolean(tokens),
      revoked: {},
      failures: [],
      forgotten: false,
    };
    if (!tokens) return outcome;
    // Settings of another installation are the user's to fix, not a failure to revoke, unless
    // `forget` asks to forget the tokens here anyway (sending nothing).
    const elsewhere = this.settings().otherInstallation('tokens');
    if (elsewhere && !options.forget) throw elsewhere;
    let settings: ResolvedSettings | undefined;
    await this.withSecrets();
    try {
      if (elsewhere) throw elsewhere;
      settings = this.settings();
      settings.endpoint('revoke');
      settings.client();
    } catch (error) {
      if (!(error instanceof DasvcError)) throw error;
      outcome.failures.push({ kind: 'all', error });
      settings = undefined;
    }
    // The access token first, as in revoke({ all }).
    const pairs: [TokenTypeHint, string | null][] = [
      ['access_token', usableAccessToken(tokens)],
      ['refresh_token', tokens.refreshToken],
    ];
    for (const [kind, token] of pairs) {
      if (!token || !settings) continue;
      try {
        await revokeToken(this.deps.send, settings, token, kind);
        outcome.revoked[kind] = true;
      } catch (error) {
        if (!(error instanceof DasvcError)) throw error;
        outcome.revoked[kind] = false;
        outcome.failures.push({ kind, error });
        // Stop here: revoking the refresh token would also end the access token kept as "may
        // still be valid" (SPEC §5), leaving the profile a pair that is dead at the service.
        if (!options.forget) break;
      }
    }
    // SPEC §3: when the service could not be reached or refused, the tokens are kept (they may
    // still be valid there) unless `forget`; what it confirmed revoked is forgotten either way.
    if (outcome.failures.length === 0 || options.forget) {
      await forgetTokens(this.deps.tokens, name, 'all');
      // SPEC §9: logout deletes the secrets wherever they are, the client secret too (the OS
      // store's entry goes); the profile keeps its settings, so a login needs only the secret.
      await this.deps.profiles?.update((data) => {
        const profile = data.profiles?.[name];
        if (profile) delete profile.clientSecret;
      });
      outcome.forgotten = true;
      return outcome;
    }
    if (outcome.revoked.access_token)
      await forgetTokens(this.deps.tokens, name, 'access', this.deps.now());
    throw keptTokens(name, outcome.failures[0]!.error);
  }

  /**
   * The authorization-code flow (SPEC §3 `login`), then the profile's settings and the tokens are
   * stored (in the profiles file, or in this client alone with `store: 'memory'`).
   */
  async login(options: LoginOptions = {}): Promise<LoginOutcome> {
    const { name } = await this.withSecrets();
    // Loaded on use: the flow's listener and PKCE stay off the rpc path.
    const { loginWith } = await import('./login.js');
    const outcome = await loginWith(this.settings(), name, options, this.deps);
    // Said by the login that stores them, once (SPEC §9); later calls find them in the file.
    if (outcome.secretsUnavailable !== undefined && this.deps.profiles) {
      const { fileFallbackMessage } = await import('../store/profile-secrets.js');
      this.deps.tell?.(
        fileFallbackMessage(name, outcome.secretsUnavailable, this.deps.profiles.file),
        'warning',
      );
    }
    if (!this.deps.profiles) this.memoryProfile = outcome.settings;
    this.reload();
    return outcome;
  }
}

/**
 * What a person should see, said to them by the embedder (the CLI: stderr); `warning` marks what
 * went otherwise than asked (the tokens kept in a file for want of an OS credential store).
 */
export type Tell = (message: string, level?: 'warning') => void;

/** The failure of a logout that kept the tokens: the first failure's kind and code, its cause. */
function keptTokens(profile: string, first: DasvcError): DasvcError {
  return sameKind(
    first,
    `could not revoke the tokens of profile ${profile} (${first.message}); they are kept, since they may still be valid at the service`,
    { detail: { profile, keptTokens: true }, cause: first },
  );
}

/** A network or service failure while revoking, in words for people. */
export function revokeFailureReason(error: DasvcError): string {
  return error instanceof NetworkError ? 'the service could not be reached' : 'the service refused';
}

/**
 * An API refusal of the token (HTTP 401/403), or an unknown instance (404), with what the CLI
 * needs for its hint (SPEC §4): the scope asked for, and where the token came from or which
 * profile (and stored scope) it is; `message` tells what followed (a refused refresh).
 */
function refusedToken(error: unknown, detail: Record<string, string>, message?: string): unknown {
  // An unknown instance: the hint lists the scopes the profile holds.
  if (error instanceof ServiceError && error.code === 'http_404')
    return sameKind(error, error.message, { detail, cause: error });
  if (!(error instanceof AuthError) || (error.status !== 401 && error.status !== 403)) return error;
  return new AuthError(message ?? error.message, {
    ...(error.code === undefined ? {} : { code: error.code }),
    status: error.status,
    detail,
    cause: error,
  });
}

/**
 * A stored profile's settings, without its tokens (`store: 'memory'` starts with none) and without
 * asking the OS store: its client secret comes with withSecrets, when one is needed.
 */
function settingsOnly(profile: Profile): Profile {
  const settings = withoutSecrets(profile);
  if (secretsLocation(profile) === 'file' && profile.clientSecret !== undefined)
    settings.clientSecret = profile.clientSecret;
  delete settings.secrets;
  return settings;
}

/** Whether `clientId` at `refreshUrl` is the profile's own client and refresh endpoint. */
function storedRefresh(profile: Profile, clientId: string, refreshUrl: string): boolean {
  const stored = ResolvedSettings.check({}, {}).withProfile(profile);
  return stored.value('clientId') === clientId && stored.endpoints().refresh === refreshUrl;
}
