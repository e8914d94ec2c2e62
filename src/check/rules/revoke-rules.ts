import { isObject } from '../../util/guards.js';
import {
  describeAnswer,
  oauthAnswerOf,
  sameAnswer,
  tokenWorked,
  unknownStanding,
} from '../answers.js';
import type { Exchange, Finding } from '../types.js';

const skipped = (observed: string): Finding => ({ status: 'skipped', observed });

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

/**
 * Why a revocation cannot start a measurement of what it ended, or undefined when it can: it got
 * no answer, or it was refused (a token the installation refused to revoke was not revoked).
 */
export function revocationUnconfirmed(revoke: Exchange): string | undefined {
  if (!revoke.response) return `the revocation got no answer (${revoke.error ?? 'no answer'})`;
  const status = revoke.response.status;
  if (status < 200 || status >= 300 || oauthAnswerOf(revoke).kind === 'error')
    return `the revocation was refused (${describeAnswer(revoke)}), so nothing was revoked`;
  return undefined;
}

/** `revoke.answer` (SERVICE.md 2.4): HTTP 200 `{"result":"Token revoked"}`. */
export function revokeAnswerRule(revoke: Exchange): Finding {
  if (isRevokedAnswer(revoke))
    return { status: 'ok', observed: 'HTTP 200 {"result":"Token revoked"}' };
  return { status: 'deviates', observed: describeAnswer(revoke), evidence: [revoke] };
}

/**
 * `revoke.access-token` (SERVICE.md 4.4): an access token that worked at the API (`before`) fails
 * there once revoked (`after`, asked only when the revocation was confirmed). Measured only when
 * each of the three says something: else skipped with why.
 */
export function revokedAccessRule(before: Exchange, revoke: Exchange, after?: Exchange): Finding {
  if (tokenWorked(before) !== true) {
    return skipped(
      `the access token did not work before the revocation: the API answered ${describeAnswer(before)}`,
    );
  }
  const unconfirmed = revocationUnconfirmed(revoke);
  if (unconfirmed !== undefined) return skipped(unconfirmed);
  if (after === undefined) return skipped('the API was not asked after the revocation');
  const unknown = unknownStanding(after);
  if (unknown !== undefined) return skipped(`after the revocation ${unknown}`);
  if (tokenWorked(after) === false)
    return { status: 'ok', observed: `afterwards the API answered ${describeAnswer(after)}` };
  return {
    status: 'deviates',
    observed: `the revoked access token still works (revoke: ${describeAnswer(revoke)})`,
    evidence: [revoke, after],
  };
}

/**
 * `revoke.refresh-token` (SPEC §5): the revoked refresh token is refused, and the access token
 * issued with it stops working too. `after` (the refresh tried again, then the API) is asked only
 * when the revocation was confirmed; a refresh that still works deviates whatever the API says.
 */
export function revokedRefreshRule(
  revoke: Exchange,
  after?: { refresh: Exchange; api: Exchange },
): Finding {
  const unconfirmed = revocationUnconfirmed(revoke);
  if (unconfirmed !== undefined) return skipped(unconfirmed);
  if (after === undefined) return skipped('nothing was tried after the revocation');
  const { refresh, api } = after;
  if (!refresh.response)
    return skipped(`the refresh afterwards got no answer (${refresh.error ?? 'no answer'})`);
  const refreshKind = oauthAnswerOf(refresh).kind;
  const accessWorks = tokenWorked(api);
  const observed = `refresh afterwards: ${describeAnswer(refresh)}; its access token: ${
    accessWorks === true
      ? 'still works'
      : accessWorks === false
        ? 'stopped working'
        : describeAnswer(api)
  }`;
  const evidence = [revoke, refresh, api];
  if (refreshKind === 'success') return { status: 'deviates', observed, evidence };
  if (refreshKind !== 'error')
    return skipped(`the refresh afterwards answered ${describeAnswer(refresh)}`);
  if (accessWorks === undefined) return skipped(`${observed}: whether it works is unknown`);
  if (accessWorks === false) return { status: 'ok', observed };
  return { status: 'deviates', observed, evidence };
}

/**
 * `revoke.unknown-token` (RFC 7009 §2.2): an unknown token is answered as a known one was
 * (`known`: the revocation of a live access token, with the same credentials and hint). A 400
 * `invalid_request` where the known one succeeded is the revokeUnknownToken quirk.
 */
export function unknownTokenRule(unknown: Exchange, known: Exchange): Finding {
  for (const [exchange, which] of [
    [unknown, 'the unknown token'],
    [known, 'the known token'],
  ] as const) {
    if (!exchange.response)
      return skipped(`the revocation of ${which} got no answer (${exchange.error ?? 'no answer'})`);
  }
  if (sameAnswer(unknown, known))
    return { status: 'ok', observed: `both answered ${describeAnswer(known)}` };
  const answer = oauthAnswerOf(unknown);
  const quirk =
    answer.kind === 'error' &&
    answer.status === 400 &&
    answer.code === 'invalid_request' &&
    oauthAnswerOf(known).kind === 'success'
      ? { quirk: { revokeUnknownToken: 'error' as const } }
      : {};
  const observed =
    unknown.response!.status === known.response!.status
      ? `both answered HTTP ${known.response!.status}, with different bodies`
      : `the unknown token: ${describeAnswer(unknown)}; a known one: ${describeAnswer(known)}`;
  return {
    status: 'deviates',
    observed,
    evidence: [unknown, known],
    ...quirk,
  };
}
