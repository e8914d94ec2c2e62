import { AuthError, UsageError } from '../../errors.js';
import type { TokenTypeHint } from '../../oauth/token-request.js';
import { canRefresh } from '../../store/expiry.js';
import {
  currentTokens,
  forgetTokens,
  loginHint,
  notLoggedIn,
  usableAccessToken,
} from '../../store/session.js';
import type { CliContext } from '../context.js';
import { stdoutAnswered } from '../output.js';
import {
  endpointOrMissing,
  pickSetting,
  resolveClient,
  resolveEndpoints,
  resolvePlacement,
  SETTINGS,
} from '../settings.js';
import {
  accessRevoked,
  baseUrlOf,
  describeExpiry,
  loadProfile,
  sessionDeps,
  sessionSummary,
  sessionUsable,
  tokenStateJson,
} from './common.js';
import { revokeToken, type RevokeAnswer, type RevokeTarget } from './revoke.js';

/** `dasvc token status` (SPEC §3): exit 3 when not logged in or when the session can no longer be used. */
export async function tokenStatusRun(ctx: CliContext): Promise<void> {
  const { name, profile } = loadProfile(ctx);
  const tokens = profile?.tokens;
  if (!profile || !tokens) throw notLoggedIn(name);
  const now = ctx.now();
  const revoked = accessRevoked(tokens);
  const refreshable = canRefresh(tokens, now);
  if (ctx.out.json) {
    ctx.out.result(tokenStateJson(name, profile, tokens, now));
  } else {
    const refresh = refreshable
      ? 'possible'
      : tokens.refreshToken === null
        ? 'not possible (no refresh token)'
        : 'not possible (the access token has expired)';
    const access = revoked
      ? `access token revoked; refresh ${refresh}`
      : describeExpiry(tokens, now);
    ctx.out.line(`profile:   ${name}`);
    ctx.out.line(`base URL:  ${profile.baseUrl ?? '(none)'}`);
    ctx.out.line(`client id: ${profile.clientId ?? '(none)'}`);
    ctx.out.line(`scope:     ${profile.scope ?? '(none)'}`);
    ctx.out.line(`access:    ${access}`);
    ctx.out.line(`refresh:   ${refresh}`);
  }
  if (!sessionUsable(tokens, now)) {
    throw stdoutAnswered(
      revoked
        ? new AuthError(
            `the access token of profile ${name} was revoked and cannot be replaced by a refresh`,
            { code: 'revoked', hint: loginHint(name) },
          )
        : new AuthError(`the session of profile ${name} has expired`, {
            code: 'expired',
            hint: loginHint(name),
          }),
    );
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

/** `dasvc token refresh` (SPEC §3): refresh now, store the new pair; the new expiry on stdout. */
export async function tokenRefreshRun(ctx: CliContext): Promise<void> {
  const view = loadProfile(ctx);
  const { tokens } = await currentTokens(sessionDeps(ctx, view), { force: true });
  const profile = ctx.store.profile(view.name) ?? view.profile ?? {};
  const now = ctx.now();
  if (ctx.out.json) ctx.out.result(tokenStateJson(view.name, profile, tokens, now));
  else ctx.out.line(sessionSummary(view.name, profile, tokens, now));
  ctx.out.success(`Refreshed: profile ${view.name}, access token ${describeExpiry(tokens, now)}`);
}

function parseHint(value: unknown): TokenTypeHint | undefined {
  if (value === undefined) return undefined;
  if (value === 'access_token' || value === 'refresh_token') return value;
  throw new UsageError(
    `--hint must be access_token or refresh_token, got ${JSON.stringify(value)}`,
    { code: 'bad_hint' },
  );
}

/** Human mode: the service's answer exactly as received on stdout, or a note when it sent none. */
function showRevocation(ctx: CliContext, answer: RevokeAnswer, what: string): void {
  if (answer.body === null) {
    ctx.out.success(`${what}: revoked (the service sent no body)`);
    return;
  }
  if (!ctx.out.json) ctx.out.line(answer.text);
  ctx.out.success(`Revoked ${what}`);
}

/**
 * `dasvc token revoke` (SPEC §3). With `--token`/DASVC_TOKEN: revoke that token with credentials from
 * flags/env (no store needed; CI). Otherwise the stored access token (or `--hint refresh_token`), or both
 * with `--all`. Exit 0 only when the service confirmed; its answer goes to stdout as received
 * (`--json`: the body, or with `--all` one object keyed by token type). Nothing stored to revoke: exit 3.
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
    const kind = hint ?? 'access_token';
    const answer = await revokeToken(ctx.send, target, explicit, kind);
    if (ctx.out.json && answer.body !== null) ctx.out.result(answer.body);
    showRevocation(ctx, answer, `the given ${kind}`);
    return;
  }
  const view = loadProfile(ctx);
  const tokens = view.profile?.tokens;
  if (!view.profile || !tokens) throw notLoggedIn(view.name);
  const which: TokenTypeHint[] = ctx.flags.all
    ? ['refresh_token', 'access_token']
    : [hint ?? 'access_token'];
  const stored = (kind: TokenTypeHint) =>
    kind === 'refresh_token' ? tokens.refreshToken : usableAccessToken(tokens);
  if (which.every((kind) => !stored(kind))) {
    throw new AuthError(
      `profile ${view.name} holds no ${which.join(' or ')} to revoke${accessRevoked(tokens) && which.includes('access_token') ? ' (its access token was revoked already)' : ''}`,
      { code: 'no_stored_token', hint: loginHint(view.name) },
    );
  }
  const target = revokeTarget(ctx, view.profile);
  const answers: Partial<Record<TokenTypeHint, Record<string, unknown> | null>> = {};
  try {
    for (const kind of which) {
      const token = stored(kind);
      if (!token) {
        ctx.out.warn(`profile ${view.name} holds no ${kind}; skipped`);
        continue;
      }
      const answer = await revokeToken(ctx.send, target, token, kind);
      answers[kind] = answer.body;
      showRevocation(ctx, answer, `the ${kind} of profile ${view.name}`);
    }
  } finally {
    // What the service confirmed is forgotten even when a later call failed; a revoked refresh
    // token ends its access token too (RFC 7009 §2.1).
    if ('refresh_token' in answers) await forgetTokens(ctx.store, view.name, 'all');
    else if ('access_token' in answers) await forgetTokens(ctx.store, view.name, 'access');
  }
  if (ctx.out.json) {
    if (ctx.flags.all) ctx.out.result(answers);
    else {
      const body = answers[which[0]!];
      if (body !== null && body !== undefined) ctx.out.result(body);
    }
  }
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
