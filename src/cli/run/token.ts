import { AuthError, UsageError } from '../../errors.js';
import type { TokenTypeHint } from '../../oauth/token-request.js';
import { canRefresh } from '../../store/expiry.js';
import { currentTokens, forgetTokens } from '../../store/session.js';
import type { CliContext } from '../context.js';
import {
  endpointOrMissing,
  pickSetting,
  resolveClient,
  resolveEndpoints,
  resolvePlacement,
  SETTINGS,
} from '../settings.js';
import { baseUrlOf, describeExpiry, loadProfile, sessionDeps, tokenStateJson } from './common.js';
import { revokeToken, type RevokeTarget } from './revoke.js';

function notLoggedIn(name: string): AuthError {
  return new AuthError(`not logged in (profile ${name})`, {
    code: 'not_logged_in',
    hint: `dasvc login --profile ${name}`,
  });
}

/** `dasvc token status` (SPEC §3): exit 3 when not logged in or when the session can no longer be used. */
export async function tokenStatusRun(ctx: CliContext): Promise<void> {
  const { name, profile } = loadProfile(ctx);
  const tokens = profile?.tokens;
  if (!profile || !tokens) throw notLoggedIn(name);
  const now = ctx.now();
  const state = tokenStateJson(name, profile, tokens, now);
  if (ctx.out.json) {
    ctx.out.result(state);
  } else {
    const refresh = canRefresh(tokens, now)
      ? 'possible'
      : tokens.refreshToken === null
        ? 'not possible (no refresh token)'
        : 'not possible (the access token has expired)';
    ctx.out.line(`profile:   ${name}`);
    ctx.out.line(`base URL:  ${profile.baseUrl ?? '(none)'}`);
    ctx.out.line(`client id: ${profile.clientId ?? '(none)'}`);
    ctx.out.line(`scope:     ${profile.scope ?? '(none)'}`);
    ctx.out.line(`access:    ${describeExpiry(tokens, now)}`);
    ctx.out.line(`refresh:   ${refresh}`);
  }
  if (state.expired && !state.refreshable) {
    throw new AuthError(`the session of profile ${name} has expired`, {
      code: 'expired',
      hint: `dasvc login --profile ${name}`,
    });
  }
}

/** `dasvc token print` (SPEC §3): the access token alone, refreshed first when due. */
export async function tokenPrintRun(ctx: CliContext): Promise<void> {
  const view = loadProfile(ctx);
  const { tokens } = await currentTokens(sessionDeps(ctx, view));
  if (ctx.out.json)
    ctx.out.result({
      accessToken: tokens.accessToken,
      expiresAt: tokens.expiresAt === null ? null : new Date(tokens.expiresAt).toISOString(),
    });
  else ctx.out.line(tokens.accessToken);
}

/** `dasvc token refresh` (SPEC §3): refresh now, store the new pair. */
export async function tokenRefreshRun(ctx: CliContext): Promise<void> {
  const view = loadProfile(ctx);
  const { tokens } = await currentTokens(sessionDeps(ctx, view), { force: true });
  const profile = ctx.store.profile(view.name) ?? view.profile ?? {};
  if (ctx.out.json) ctx.out.result(tokenStateJson(view.name, profile, tokens, ctx.now()));
  ctx.out.success(
    `Refreshed: profile ${view.name}, access token ${describeExpiry(tokens, ctx.now())}`,
  );
}

function parseHint(value: unknown): TokenTypeHint | undefined {
  if (value === undefined) return undefined;
  if (value === 'access_token' || value === 'refresh_token') return value;
  throw new UsageError(
    `--hint must be access_token or refresh_token, got ${JSON.stringify(value)}`,
    { code: 'bad_hint' },
  );
}

/**
 * `dasvc token revoke` (SPEC §3). With `--token`/DASVC_TOKEN: revoke that token with credentials from
 * flags/env (no store needed; CI). Otherwise the stored access token (or `--hint refresh_token`), or both
 * with `--all`. Exit 0 only when the service confirmed; its answer goes to stdout.
 */
export async function tokenRevokeRun(ctx: CliContext): Promise<void> {
  const hint = parseHint(ctx.flags.hint);
  const explicit = pickSetting(SETTINGS.token, ctx.flags, ctx.env, undefined)?.value;
  if (explicit !== undefined) {
    if (ctx.flags.all)
      throw new UsageError(
        '--all revokes the stored tokens; it cannot be combined with --token/DASVC_TOKEN',
        { code: 'bad_flags' },
      );
    // The store is consulted only for what flags and env leave open, so CI works with no config at all.
    const needStore =
      !pickSetting(SETTINGS.clientId, ctx.flags, ctx.env, undefined) ||
      !pickSetting(SETTINGS.clientSecret, ctx.flags, ctx.env, undefined) ||
      (!pickSetting(SETTINGS.baseUrl, ctx.flags, ctx.env, undefined) &&
        !pickSetting(SETTINGS.revokeUrl, ctx.flags, ctx.env, undefined));
    const profile = needStore ? loadProfile(ctx).profile : undefined;
    const target = revokeTarget(ctx, profile);
    const body = await revokeToken(ctx.send, target, explicit, hint ?? 'access_token');
    ctx.out.result(body ?? { result: 'revoked' });
    ctx.out.success(`Revoked the given ${hint ?? 'access_token'}`);
    return;
  }
  const view = loadProfile(ctx);
  const tokens = view.profile?.tokens;
  if (!view.profile || !tokens) throw notLoggedIn(view.name);
  const target = revokeTarget(ctx, view.profile);
  const which: TokenTypeHint[] = ctx.flags.all
    ? ['refresh_token', 'access_token']
    : [hint ?? 'access_token'];
  for (const kind of which) {
    const token = kind === 'refresh_token' ? tokens.refreshToken : tokens.accessToken;
    if (!token) {
      ctx.out.warn(`profile ${view.name} holds no ${kind}; skipped`);
      continue;
    }
    const body = await revokeToken(ctx.send, target, token, kind);
    ctx.out.result(body ?? { result: 'revoked' });
    ctx.out.success(`Revoked the ${kind} of profile ${view.name}`);
  }
  await forgetTokens(ctx.store, view.name, which.includes('refresh_token') ? 'all' : 'access');
}

/** Revoke URL, client and placement, flag > env > profile. */
export function revokeTarget(
  ctx: CliContext,
  profile: Parameters<typeof resolveClient>[2],
): RevokeTarget {
  const endpoints = resolveEndpoints(baseUrlOf(ctx, profile), ctx.flags, ctx.env, profile);
  return {
    url: endpointOrMissing(endpoints, 'revoke'),
    client: resolveClient(ctx.flags, ctx.env, profile),
    placement: resolvePlacement(ctx.flags, ctx.env, profile),
  };
}
