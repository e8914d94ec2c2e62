import { DEFAULT_LOGIN_TIMEOUT_MS, runLoginFlow } from '../oauth/login-flow.js';
import type { TokenSet } from '../oauth/token-response.js';
import { withoutSecrets } from '../store/profile-secrets.js';
import type { Profile } from '../schemas/config-file.js';
import type { ClientDeps } from './client-deps.js';
import { clientRefused } from './client-refused.js';
import type { ResolvedSettings } from './resolve-settings.js';
import { UsageError } from '../errors.js';
import { isTimerMs, MAX_DURATION_SECONDS } from '../util/duration.js';
import { checkPort } from '../util/port.js';

/** Options of one login (SPEC §1 `client.login`, SPEC §3 `dasvc login`). */
export interface LoginOptions {
  /**
   * Whether and how the authorization URL is opened: `true` (default) the system browser
   * (DASVC_BROWSER, BROWSER, open), `false` none (as `noBrowser`: the URL goes to `tell`), or a
   * function of one's own. A rejection is no browser (none on a Linux without a display, a failing
   * command): `tell` hears why, and `pasted` and the loopback still complete the login.
   */
  openBrowser?: boolean | ((url: string) => Promise<void>);
  /** Do not open any browser: the URL goes to `tell`, and a pasted redirect URL may complete it. */
  noBrowser?: boolean;
  /**
   * Lines pasted by the user: a redirect URL completes the flow like the loopback, while the
   * browser is waited for too.
   */
  pasted?: AsyncIterable<string>;
  /** Whether `pasted` is read while a browser that opened is waited for too (default true). */
  pastedBesideBrowser?: boolean;
  /** Loopback port; 0 (default) picks a free one. */
  port?: number;
  /** Send PKCE S256 (default true). */
  pkce?: boolean;
  /** Give up after this long (default 300 s). */
  timeoutMs?: number;
  /** Seconds before expiry to refresh, stored with the profile. */
  refreshMargin?: number;
  /** Keep the tokens and client secret in the config file, not the OS credential store (SPEC §9). */
  insecureStorage?: boolean;
}

/** A finished login: the profile as stored and the tokens (the CLI never prints them). */
export interface LoginOutcome {
  profile: string;
  settings: Profile;
  tokens: TokenSet;
  redirectUri: string;
  /** Why the OS credential store could not be used (the secrets then went to the file). */
  secretsUnavailable?: string;
}

/**
 * Resolves the login's settings (option > variable > profile > prompt), runs the flow, and stores
 * the profile's settings and then its tokens, so that later calls need no options.
 */
export async function loginWith(
  settings: ResolvedSettings,
  name: string,
  options: LoginOptions,
  deps: ClientDeps,
): Promise<LoginOutcome> {
  checkLoginOptions(options);
  const { prompter } = deps;
  const explicitEndpoints = settings.explicit('authorizeUrl') && settings.explicit('tokenUrl');
  const baseUrl = explicitEndpoints
    ? settings.value('baseUrl')
    : await settings.ask('baseUrl', prompter);
  const clientId = await settings.ask('clientId', prompter);
  const clientSecret = await settings.ask('clientSecret', prompter);
  const scope = await settings.ask('scope', prompter);
  // A base URL typed at the prompt derives the endpoints just as a given one would.
  const resolved = baseUrl === settings.value('baseUrl') ? settings : settings.withBaseUrl(baseUrl);
  const endpoints = resolved.endpoints();
  const placement = resolved.placement();
  const given = options.openBrowser;
  const openBrowser =
    options.noBrowser || given === false
      ? undefined
      : typeof given === 'function'
        ? given
        : (deps.openBrowser ??
          (async (url: string) => (await import('./browser.js')).openBrowser(url, deps.env)));
  // Before the browser opens: a code exchanged into a store that cannot take the tokens would
  // leave a live grant at the service and the tokens lost.
  deps.profiles?.assertWritable();
  let result;
  try {
    result = await runLoginFlow(
      {
        authorizeUrl: resolved.endpoint('authorize'),
        tokenUrl: resolved.endpoint('token'),
        client: { clientId, clientSecret },
        scope,
        placement,
        port: options.port ?? 0,
        pkce: options.pkce !== false,
        timeoutMs: options.timeoutMs ?? DEFAULT_LOGIN_TIMEOUT_MS,
        ...(deps.approvedAtOnceWaitMs === undefined
          ? {}
          : { approvedAtOnceWaitMs: deps.approvedAtOnceWaitMs }),
      },
      {
        send: deps.send,
        now: deps.now,
        tell: deps.tell ?? (() => undefined),
        openBrowser,
        pasted: options.pasted,
        ...(options.pastedBesideBrowser === undefined
          ? {}
          : { pastedBesideBrowser: options.pastedBesideBrowser }),
        signal: deps.signal,
      },
    );
  } catch (error) {
    throw clientRefused(error, {
      profile: name,
      clientId,
      secretFrom: settings.pick('clientSecret')?.source ?? 'prompt',
    });
  }
  const refreshMargin = options.refreshMargin ?? settings.profile?.refreshMargin;
  // The old profile's settings only: its secrets may be unreadable, and this login replaces them.
  const stored: Profile = {
    ...withoutSecrets(settings.profile),
    baseUrl,
    clientId,
    clientSecret,
    scope,
    endpoints,
    params: placement,
    ...(refreshMargin === undefined ? {} : { refreshMargin }),
  };
  let secretsUnavailable: string | undefined;
  const { profiles } = deps;
  if (profiles) {
    const { chooseSecretsLocation } = await import('../store/profile-secrets.js');
    const where = await chooseSecretsLocation(
      profiles.keychain,
      name,
      options.insecureStorage === true,
    );
    secretsUnavailable = where.unavailable;
    stored.secrets = where.location;
    // The active profile is chosen by `dasvc profile use` alone (SPEC §2: else `default`).
    await profiles.update((data) => {
      const all = (data.profiles ??= {});
      all[name] = { ...withoutSecrets(all[name]), ...stored };
    });
  }
  await deps.tokens.replace(name, result.tokens);
  return {
    profile: name,
    settings: stored,
    tokens: result.tokens,
    redirectUri: result.redirectUri,
    ...(secretsUnavailable === undefined ? {} : { secretsUnavailable }),
  };
}

/**
 * The login's own options, checked before anything is asked or sent (SPEC §1: bad settings fail
 * as usage errors naming the option): a loopback port Node cannot listen on, a deadline that is
 * no time, or a refresh margin the config file cannot hold, which would be found out only once
 * the code was exchanged, or make the file unreadable for every profile.
 */
function checkLoginOptions(options: LoginOptions): void {
  const bad = (option: string, flag: string, must: string, value: unknown) =>
    new UsageError(`${option} (${flag}) must be ${must}, got ${String(value)}`, {
      code: `bad_${flag.replace(/^--/, '').replace(/-/g, '_')}`,
      facts: { option },
    });
  const { port, timeoutMs, refreshMargin } = options;
  if (port !== undefined) checkPort(port, 'port (--port)');
  if (timeoutMs !== undefined && !isTimerMs(timeoutMs))
    throw bad('timeoutMs', '--timeout', 'above 0 and at most 24 days', timeoutMs);
  if (
    refreshMargin !== undefined &&
    !(Number.isFinite(refreshMargin) && refreshMargin >= 0 && refreshMargin <= MAX_DURATION_SECONDS)
  )
    throw bad('refreshMargin', '--refresh-margin', 'seconds from 0 to 100 years', refreshMargin);
}
