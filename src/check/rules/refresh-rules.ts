import { describeAnswer, oauthAnswerOf } from '../answers.js';
import type { Exchange, Finding } from '../types.js';

/** The tokens a refresh answered (strings as received), or why there are none. */
export function refreshedTokens(exchange: Exchange): { access?: string; refresh?: string } {
  const answer = oauthAnswerOf(exchange);
  if (answer.kind !== 'success') return {};
  const { access_token: access, refresh_token: refresh } = answer.body;
  return {
    ...(typeof access === 'string' && access !== '' ? { access } : {}),
    ...(typeof refresh === 'string' && refresh !== '' ? { refresh } : {}),
  };
}

/** `refresh.new-pair` (SERVICE.md 4.3): a new access token and a refresh token in the answer. */
export function newPairRule(oldAccess: string, exchange: Exchange): Finding {
  const answer = oauthAnswerOf(exchange);
  if (answer.kind !== 'success') {
    return {
      status: 'deviates',
      observed: `the refresh failed: ${describeAnswer(exchange)}`,
      evidence: [exchange],
    };
  }
  const { access, refresh } = refreshedTokens(exchange);
  const problems = [
    ...(access === undefined
      ? ['no access_token']
      : access === oldAccess
        ? ['the same access_token']
        : []),
    ...(refresh === undefined ? ['no refresh_token'] : []),
  ];
  if (problems.length === 0)
    return { status: 'ok', observed: 'a new access_token and a refresh_token' };
  return { status: 'deviates', observed: problems.join('; '), evidence: [exchange] };
}

/** `refresh.rotation` (SERVICE.md 4.3): the refresh token answered differs from the one used. */
export function rotationRule(oldRefresh: string, exchange: Exchange): Finding {
  const { refresh } = refreshedTokens(exchange);
  if (oauthAnswerOf(exchange).kind !== 'success') {
    return { status: 'skipped', observed: `the refresh failed: ${describeAnswer(exchange)}` };
  }
  if (refresh === undefined) {
    return {
      status: 'deviates',
      observed: 'the answer has no refresh_token',
      evidence: [exchange],
    };
  }
  if (refresh !== oldRefresh) return { status: 'ok', observed: 'a different refresh token' };
  return {
    status: 'deviates',
    observed: 'the same refresh token came back',
    evidence: [exchange],
    quirk: { refreshRotation: false },
  };
}

/** `refresh.old-refused` (SPEC §5): the refresh token already used is refused. */
export function oldRefusedRule(reuse: Exchange): Finding {
  const answer = oauthAnswerOf(reuse);
  if (answer.kind === 'error')
    return { status: 'ok', observed: `refused: ${describeAnswer(reuse)}` };
  if (answer.kind === 'success') {
    return {
      status: 'deviates',
      observed: 'the used refresh token refreshed again',
      evidence: [reuse],
      quirk: { oldRefreshTokenAccepted: true },
    };
  }
  return { status: 'deviates', observed: describeAnswer(reuse), evidence: [reuse] };
}

/** `refresh.after-expiry` (SERVICE.md 4.3): once the access token expired, its refresh is refused. */
export function afterExpiryRule(waitedMs: number, attempt: Exchange): Finding {
  const answer = oauthAnswerOf(attempt);
  const after = `after waiting ${waitedMs} ms for the access token to expire`;
  if (answer.kind === 'error')
    return { status: 'ok', observed: `refused ${after}: ${describeAnswer(attempt)}` };
  if (answer.kind === 'success') {
    return {
      status: 'deviates',
      observed: `accepted ${after}`,
      evidence: [attempt],
      quirk: { refreshAfterExpiry: true },
    };
  }
  return {
    status: 'deviates',
    observed: `${after}: ${describeAnswer(attempt)}`,
    evidence: [attempt],
  };
}
