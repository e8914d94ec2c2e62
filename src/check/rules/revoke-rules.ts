import { isObject } from '../../util/guards.js';
import { describeAnswer, oauthAnswerOf, tokenWorked } from '../answers.js';
import type { Exchange, Finding } from '../types.js';

function isRevokedAnswer(exchange: Exchange): boolean {
  const answer = oauthAnswerOf(exchange);
  return (
    answer.kind === 'success' &&
    answer.status === 200 &&
    isObject(answer.body) &&
    Object.keys(answer.body).length === 1 &&
    answer.body.result === 'Token revoked'
  );
}

/** `revoke.answer` (SERVICE.md 2.4): HTTP 200 `{"result":"Token revoked"}`. */
export function revokeAnswerRule(revoke: Exchange): Finding {
  if (isRevokedAnswer(revoke))
    return { status: 'ok', observed: 'HTTP 200 {"result":"Token revoked"}' };
  return { status: 'deviates', observed: describeAnswer(revoke), evidence: [revoke] };
}

/** `revoke.access-token` (SERVICE.md 4.4): the revoked access token fails at the API. */
export function revokedAccessRule(revoke: Exchange, api: Exchange): Finding {
  const works = tokenWorked(api);
  if (works === false)
    return { status: 'ok', observed: `afterwards the API answered ${describeAnswer(api)}` };
  const observed =
    works === true
      ? `the revoked access token still works (revoke: ${describeAnswer(revoke)})`
      : `afterwards the API answered ${describeAnswer(api)}`;
  return { status: 'deviates', observed, evidence: [revoke, api] };
}

/**
 * `revoke.refresh-token` (SPEC §5): the revoked refresh token is refused, and the access token
 * issued with it stops working too (observed either way).
 */
export function revokedRefreshRule(revoke: Exchange, refresh: Exchange, api: Exchange): Finding {
  const refreshRefused = oauthAnswerOf(refresh).kind === 'error';
  const accessWorks = tokenWorked(api);
  const observed = `refresh afterwards: ${describeAnswer(refresh)}; its access token: ${
    accessWorks === true
      ? 'still works'
      : accessWorks === false
        ? 'stopped working'
        : describeAnswer(api)
  }`;
  if (refreshRefused && accessWorks === false) return { status: 'ok', observed };
  return { status: 'deviates', observed, evidence: [revoke, refresh, api] };
}

/** `revoke.unknown-token` (RFC 7009 §2.2): an unknown token is answered like a known one. */
export function unknownTokenRule(revoke: Exchange): Finding {
  if (isRevokedAnswer(revoke))
    return { status: 'ok', observed: 'HTTP 200 {"result":"Token revoked"}' };
  const answer = oauthAnswerOf(revoke);
  const quirk =
    answer.kind === 'error' && answer.status === 400 && answer.code === 'invalid_request'
      ? { quirk: { revokeUnknownToken: 'error' as const } }
      : {};
  return { status: 'deviates', observed: describeAnswer(revoke), evidence: [revoke], ...quirk };
}
