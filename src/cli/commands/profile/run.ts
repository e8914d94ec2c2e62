import { DasvcError, UsageError } from '../../../errors.js';
import type { CliDeps } from '../../context.js';
import { tokenStateJson } from '../../token-state.js';
import type { Profile } from '../../../schemas/config-file.js';
import { checkProfileName } from '../../../store/store-shape.js';

/** Options of `dasvc profile <action> [name]` (SPEC §3). */
export interface ProfileOptions {
  action: 'list' | 'show' | 'use' | 'remove';
  name?: string;
}

/**
 * A profile's secrets, or why they cannot be read: list and show still describe a profile whose
 * secrets are in an OS credential store that is not reachable here (a headless session), with its
 * login state unknown, instead of failing as a whole.
 */
function secretsOf(profile: Profile): Pick<Profile, 'tokens' | 'clientSecret'> & {
  unreachable?: string;
} {
  try {
    return { tokens: profile.tokens, clientSecret: profile.clientSecret };
  } catch (error) {
    if (error instanceof DasvcError && error.code === 'keychain_unavailable')
      return { unreachable: error.message };
    throw error;
  }
}

function summary(
  name: string,
  profile: Profile,
  active: boolean,
  now: number,
): Record<string, unknown> {
  const { tokens, clientSecret, unreachable } = secretsOf(profile);
  return {
    profile: name,
    active,
    baseUrl: profile.baseUrl ?? null,
    clientId: profile.clientId ?? null,
    clientSecret: unreachable ? '[unreachable]' : clientSecret ? '[set]' : null,
    scope: profile.scope ?? null,
    endpoints: profile.endpoints ?? {},
    params: profile.params ?? 'query',
    refreshMargin: profile.refreshMargin ?? null,
    // null: unknown, the OS credential store that holds the tokens is not reachable here.
    loggedIn: unreachable ? null : Boolean(tokens),
    tokens: tokens ? tokenStateJson(name, profile, tokens, now) : null,
    ...(unreachable ? { unreachable } : {}),
  };
}

/** The list's login column. */
function loginState(loggedIn: unknown): string {
  return loggedIn === null
    ? 'unknown (credential store unreachable)'
    : loggedIn
      ? 'logged in'
      : 'logged out';
}

/** A profile's name, marked `*` when it is the active one: the same in list and show. */
function marked(name: string, active: boolean): string {
  return `${active ? '*' : ' '} ${name}`;
}

/** `dasvc profile list|show|use|remove` (SPEC §3). Secrets and tokens are never shown. */
export async function run(options: ProfileOptions, deps: CliDeps): Promise<void> {
  const { action, name: target } = options;
  const data = deps.store.read();
  const profiles = data.profiles ?? {};
  const active = deps.profileName(data);
  if (action === 'list') {
    // Asked side by side: one store that does not answer costs its deadline once.
    await Promise.all(Object.entries(profiles).map(([n, p]) => deps.store.loadSecrets(p, n)));
    const rows = Object.entries(profiles).map(([name, p]) =>
      summary(name, p, name === active, deps.now()),
    );
    if (deps.out.json)
      return deps.out.result(
        rows.map(({ profile, active: a, baseUrl, scope, loggedIn }) => ({
          profile,
          active: a,
          baseUrl,
          scope,
          loggedIn,
        })),
      );
    const unknown = rows.find((row) => row.unreachable);
    if (unknown) deps.out.warn(String(unknown.unreachable));
    if (rows.length === 0) return deps.out.info('No profiles yet; run dasvc login or dasvc init.');
    for (const row of rows) {
      deps.out.line(
        `${marked(String(row.profile), row.active === true)}\t${String(row.baseUrl ?? '')}\t${String(row.scope ?? '')}\t${loginState(row.loggedIn)}`,
      );
    }
    return;
  }
  const name = target === undefined ? active : checkProfileName(target, `profile ${action}`);
  const noSuchProfile = () =>
    new UsageError(`no profile named ${JSON.stringify(name)}`, {
      code: 'no_such_profile',
      hint: 'dasvc profile list',
    });
  const profile = Object.hasOwn(profiles, name) ? profiles[name] : undefined;
  if (!profile) throw noSuchProfile();
  if (action === 'show') {
    await deps.store.loadSecrets(profile, name);
    const view = summary(name, profile, name === active, deps.now());
    if (view.unreachable) deps.out.warn(String(view.unreachable));
    if (deps.out.json) return deps.out.result(view);
    deps.out.line(marked(name, name === active));
    for (const [key, value] of Object.entries(view)) {
      if (['tokens', 'profile', 'active', 'unreachable'].includes(key) || value === null) continue;
      deps.out.line(`${key}: ${typeof value === 'object' ? JSON.stringify(value) : String(value)}`);
    }
    const tokens = view.tokens as Record<string, unknown> | null;
    if (tokens)
      deps.out.line(
        `accessExpiresAt: ${String(tokens.expiresAt ?? 'unknown')}\nrefreshable: ${String(tokens.refreshable)}`,
      );
    return;
  }
  await deps.store.update((fresh) => {
    // Under the lock, as it is now: a `profile remove` may have run since it was read.
    if (!Object.hasOwn(fresh.profiles ?? {}, name)) throw noSuchProfile();
    if (action === 'use') fresh.activeProfile = name;
    else {
      delete fresh.profiles?.[name];
      if (fresh.activeProfile === name) delete fresh.activeProfile;
    }
  });
  if (deps.out.json) deps.out.result({ profile: name, action });
  deps.out.success(
    action === 'use'
      ? `Active profile: ${name}`
      : `Removed profile ${name} (its tokens were not revoked)`,
  );
}
