import { tokenWorked } from './answers.js';
import { authorize, unusable } from './authorize-step.js';
import type { CheckRun } from './check-run.js';
import { rulesOf } from './rule-catalogue.js';
import { afterExpiryRule, refreshedTokens } from './rules/refresh-rules.js';
import { revocationUnconfirmed, revokedRefreshRule } from './rules/revoke-rules.js';
import {
  expiresInRule,
  expiresInUnit,
  readExpiresInMember,
  type UnitProbe,
} from './rules/token-rules.js';

/** Past the announced lifetime before trying a token: clocks and transit are not exact. */
const EXPIRY_SLACK_MS = 300;

/**
 * The third authorization's rules, which wait: expires_in's unit (the token tried just past the
 * lifetime read as milliseconds), a refresh after the access token expired, and last the
 * revocation of the refresh token of the pair still alive.
 */
export async function expiryPhase(run: CheckRun): Promise<void> {
  const { probes, scope, settings, deps } = run;
  const auth = await authorize(run);
  const why = unusable(auth);
  if (why !== undefined) return run.skipUnauthorized(rulesOf('expiry'), why);
  let access = auth.access!;
  let refresh = auth.refresh;
  const expiresIn = readExpiresInMember(auth.body!);
  let probe: UnitProbe | undefined;
  if ('value' in expiresIn && expiresIn.value <= settings.maxWaitMs) {
    await run.sleepUntil(
      auth.at + expiresIn.value + EXPIRY_SLACK_MS,
      'to tell milliseconds from seconds (token.expires-in)',
    );
    const evidence = await probes.call(scope, 'rpc.discover', access);
    probe = { waitedMs: deps.now() - auth.at, stillWorks: tokenWorked(evidence), evidence };
  }
  run.give(
    'token.expires-in',
    expiresInRule(expiresIn, probe, settings.maxWaitMs, auth.outcome.exchange!),
  );
  let pairEnded = false;
  if (run.want('refresh.after-expiry')) {
    const lifetimeMs =
      'value' in expiresIn
        ? expiresIn.value * (expiresInUnit(probe) === 'milliseconds' ? 1 : 1000)
        : undefined;
    if (refresh === undefined) {
      run.skip(['refresh.after-expiry'], 'the token answer had no refresh_token');
    } else if (lifetimeMs === undefined && !(await expiredWithin(run, access, auth.at))) {
      const max = settings.maxWaitMs / 1000;
      run.skip(
        ['refresh.after-expiry'],
        max === 0
          ? 'the access lifetime is unknown (no expires_in), and --max-wait is 0s'
          : `the access lifetime is unknown (no expires_in), and the token still worked after --max-wait ${max}s`,
      );
    } else if (lifetimeMs !== undefined && lifetimeMs > settings.maxWaitMs) {
      run.skip(
        ['refresh.after-expiry'],
        `the access lifetime ${lifetimeMs / 1000}s exceeds --max-wait ${settings.maxWaitMs / 1000}s`,
      );
    } else {
      if (lifetimeMs !== undefined) {
        await run.sleepUntil(
          auth.at + lifetimeMs + EXPIRY_SLACK_MS,
          'for the access token to expire (refresh.after-expiry)',
        );
      }
      const attempt = await probes.refresh(refresh);
      run.give('refresh.after-expiry', afterExpiryRule(deps.now() - auth.at, attempt));
      const next = refreshedTokens(attempt);
      if (next.access !== undefined) {
        access = next.access;
        refresh = next.refresh ?? refresh;
      } else pairEnded = true;
    }
  }
  if (!run.want('revoke.refresh-token')) return;
  if (refresh === undefined || pairEnded) {
    const reason =
      refresh === undefined
        ? 'the token answer had no refresh_token'
        : 'the refresh token ended with its access token (refresh.after-expiry); no live pair is left';
    return run.skip(['revoke.refresh-token'], reason);
  }
  const revoke = await probes.revoke(refresh, 'refresh_token');
  if (revocationUnconfirmed(revoke) !== undefined) {
    run.give('revoke.refresh-token', revokedRefreshRule(revoke));
    return;
  }
  const again = await probes.refresh(refresh);
  const api = await probes.call(scope, 'rpc.discover', access);
  run.give('revoke.refresh-token', revokedRefreshRule(revoke, { refresh: again, api }));
}

/**
 * Without `expires_in` the access lifetime is observed instead (SPEC §7: refresh.after-expiry
 * runs when the observed lifetime is at most --max-wait): the token is tried every twentieth
 * of --max-wait (at least 250 ms apart, so about 20 tries), until the API refuses it or
 * --max-wait (and the usual 0.3 s of slack) has passed since it was issued.
 */
async function expiredWithin(run: CheckRun, access: string, issuedAt: number): Promise<boolean> {
  const { settings, deps } = run;
  if (settings.maxWaitMs <= 0) return false;
  const deadline = issuedAt + settings.maxWaitMs + EXPIRY_SLACK_MS;
  const step = Math.max(250, settings.maxWaitMs / 20);
  deps.tell?.(
    `Trying the access token for up to ${settings.maxWaitMs / 1000} s to see it expire (refresh.after-expiry)…`,
  );
  while (deps.now() < deadline) {
    await deps.sleep(Math.min(step, deadline - deps.now()));
    if (tokenWorked(await run.probes.call(run.scope, 'rpc.discover', access)) === false)
      return true;
  }
  return false;
}
