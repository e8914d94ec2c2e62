import { AuthError, UsageError } from '../../../errors.js';
import type { TokenTypeHint } from '../../../oauth/token-request.js';
import { forgetTokens, loginHint, notLoggedIn, usableAccessToken } from '../../../store/session.js';
import type { CliDeps } from '../../context.js';
import { revokeTarget, revokeToken, type RevokeAnswer } from '../../revoke-token.js';
import { pickSetting, SETTINGS } from '../../settings.js';
import { accessRevoked, loadProfile } from '../../token-state.js';
import type { TokenRevokeOptions } from './command.js';

function parseHint(value: unknown): TokenTypeHint | undefined {
  if (value === undefined) return undefined;
  if (value === 'access_token' || value === 'refresh_token') return value;
  throw new UsageError(
    `--hint must be access_token or refresh_token, got ${JSON.stringify(value)}`,
    { code: 'bad_hint' },
  );
}

/** Human mode: the service's answer exactly as received on stdout, or a note when it sent none. */
function showRevocation(deps: CliDeps, answer: RevokeAnswer, what: string): void {
  if (answer.body === null) {
    deps.out.success(`${what}: revoked (the service sent no body)`);
    return;
  }
  if (!deps.out.json) deps.out.line(answer.text);
  deps.out.success(`Revoked ${what}`);
}

/**
 * `dasvc token revoke` (SPEC §3). With `--token`/DASVC_TOKEN: revoke that token with credentials from
 * flags/env (no store needed; CI). Otherwise the stored access token (or `--hint refresh_token`), or both
 * with `--all`. Exit 0 only when the service confirmed; its answer goes to stdout as received
 * (`--json`: the body, or with `--all` one object keyed by token type). Nothing stored to revoke: exit 3.
 */
export async function run(options: TokenRevokeOptions, deps: CliDeps): Promise<void> {
  const hint = parseHint(options.hint);
  const explicit = pickSetting(SETTINGS.token, options, deps.env, undefined)?.value;
  if (explicit !== undefined) {
    if (options.all)
      throw new UsageError(
        '--all revokes the stored tokens; it cannot be combined with --token/DASVC_TOKEN',
        { code: 'bad_flags' },
      );
    // The store is consulted only for what flags and env leave open, so CI works with no config at all.
    const needStore =
      !pickSetting(SETTINGS.clientId, options, deps.env, undefined) ||
      !pickSetting(SETTINGS.clientSecret, options, deps.env, undefined) ||
      (!pickSetting(SETTINGS.baseUrl, options, deps.env, undefined) &&
        !pickSetting(SETTINGS.revokeUrl, options, deps.env, undefined));
    const profile = needStore ? loadProfile(deps).profile : undefined;
    const target = revokeTarget(options, deps, profile);
    const kind = hint ?? 'access_token';
    const answer = await revokeToken(deps.send, target, explicit, kind);
    if (deps.out.json && answer.body !== null) deps.out.result(answer.body);
    showRevocation(deps, answer, `the given ${kind}`);
    return;
  }
  const view = loadProfile(deps);
  const tokens = view.profile?.tokens;
  if (!view.profile || !tokens) throw notLoggedIn(view.name);
  // The access token first: revoking the refresh token often ends it too, and an installation
  // that refuses unknown tokens (the revokeUnknownToken quirk, SPEC §7) would then refuse it.
  const which: TokenTypeHint[] = options.all
    ? ['access_token', 'refresh_token']
    : [hint ?? 'access_token'];
  const stored = (kind: TokenTypeHint) =>
    kind === 'refresh_token' ? tokens.refreshToken : usableAccessToken(tokens);
  if (which.every((kind) => !stored(kind))) {
    throw new AuthError(
      `profile ${view.name} holds no ${which.join(' or ')} to revoke${accessRevoked(tokens) && which.includes('access_token') ? ' (its access token was revoked already)' : ''}`,
      { code: 'no_stored_token', hint: loginHint(view.name) },
    );
  }
  const target = revokeTarget(options, deps, view.profile);
  const answers: Partial<Record<TokenTypeHint, Record<string, unknown> | null>> = {};
  try {
    for (const kind of which) {
      const token = stored(kind);
      if (!token) {
        deps.out.warn(`profile ${view.name} holds no ${kind}; skipped`);
        continue;
      }
      const answer = await revokeToken(deps.send, target, token, kind);
      answers[kind] = answer.body;
      showRevocation(deps, answer, `the ${kind} of profile ${view.name}`);
    }
  } finally {
    // What the service confirmed is forgotten even when a later call failed; a revoked refresh
    // token ends its access token too (RFC 7009 §2.1).
    if ('refresh_token' in answers) await forgetTokens(deps.store, view.name, 'all');
    else if ('access_token' in answers) await forgetTokens(deps.store, view.name, 'access');
  }
  if (deps.out.json) {
    if (options.all) deps.out.result(answers);
    else {
      const body = answers[which[0]!];
      if (body !== null && body !== undefined) deps.out.result(body);
    }
  }
}
