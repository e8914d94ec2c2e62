import { tokenWorked } from './answers.js';
import { authorize, unusable } from './authorize-step.js';
import type { CheckRun } from './check-run.js';
import { rulesOf } from './rule-catalogue.js';
import {
  newPairRule,
  oldRefusedRule,
  refreshedTokens,
  rotationRule,
} from './rules/refresh-rules.js';
import {
  revocationUnconfirmed,
  revokeAnswerRule,
  revokedAccessRule,
  unknownTokenRule,
} from './rules/revoke-rules.js';
import type { Finding } from './types.js';

/**
 * The second authorization's rules: its pair refreshed (new pair, rotation), the access token
 * then revoked (answer, access token, unknown token), and last the used refresh token tried again.
 */
export async function pairPhase(run: CheckRun): Promise<void> {
  const refreshIds = rulesOf('refresh');
  const revokeIds = rulesOf('revoke');
  const auth = await authorize(run);
  const why = unusable(auth);
  if (why !== undefined) return run.skipUnauthorized([...refreshIds, ...revokeIds], why);
  let access = auth.access!;
  let oldRefused: Finding | undefined;
  if (refreshIds.some(run.want)) {
    if (auth.refresh === undefined) {
      run.skip(refreshIds, 'the token answer had no refresh_token');
    } else {
      ({ access, oldRefused } = await refreshRules(run, access, auth.refresh));
    }
  }
  if (revokeIds.some(run.want)) await revokeRules(run, access);
  if (!run.want('refresh.old-refused')) return;
  if (oldRefused !== undefined) run.give('refresh.old-refused', oldRefused);
  else run.measured('refresh.old-refused', await run.probes.refresh(auth.refresh!), oldRefusedRule);
}

/**
 * refresh.new-pair and refresh.rotation: the pair's refresh. Returns the access token to go on
 * with (the new one, when the refresh gave one) and, when the used refresh token cannot be tried
 * again, refresh.old-refused's finding.
 */
async function refreshRules(
  run: CheckRun,
  access: string,
  refresh: string,
): Promise<{ access: string; oldRefused?: Finding }> {
  const refreshed = await run.probes.refresh(refresh);
  run.measured('refresh.new-pair', refreshed, (x) => newPairRule(access, x));
  const rotation = rotationRule(refresh, refreshed);
  run.give('refresh.rotation', rotation);
  const next = refreshedTokens(refreshed);
  // The used refresh token is tried again also when it came back unchanged (no rotation): an
  // installation may then still refuse it as used, or keep accepting it (SPEC §7's two quirks).
  const oldRefused: Finding | undefined =
    rotation.status === 'skipped'
      ? { status: 'skipped', observed: rotation.observed }
      : next.refresh === undefined
        ? {
            status: 'skipped',
            observed: 'the refresh answered no refresh token, so no used one is left to try',
          }
        : undefined;
  return { access: next.access ?? access, ...(oldRefused ? { oldRefused } : {}) };
}

/**
 * revoke.answer, revoke.access-token (the token tried at the API before and after) and
 * revoke.unknown-token (compared with this revocation of a known token).
 */
async function revokeRules(run: CheckRun, access: string): Promise<void> {
  const { probes, scope } = run;
  const before = run.want('revoke.access-token')
    ? await probes.call(scope, 'rpc.discover', access)
    : undefined;
  const revoke = await probes.revoke(access, 'access_token');
  run.measured('revoke.answer', revoke, revokeAnswerRule);
  if (before !== undefined) {
    const measurable = tokenWorked(before) === true && revocationUnconfirmed(revoke) === undefined;
    const after = measurable ? await probes.call(scope, 'rpc.discover', access) : undefined;
    run.give('revoke.access-token', revokedAccessRule(before, revoke, after));
  }
  if (run.want('revoke.unknown-token'))
    run.give('revoke.unknown-token', unknownTokenRule(await run.revokeUnknown(), revoke));
}
