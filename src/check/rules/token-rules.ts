import type { Quirks } from '../../schemas/quirks.js';
import { describeAnswer, oauthAnswerOf, tokenWorked, unknownStanding } from '../answers.js';
import type { Exchange, Finding } from '../types.js';

/** How an authorization went: the code exchange it led to, or why it ended before one. */
export interface AuthorizationOutcome {
  /** The token request that the redirect's code led to (sent only once the state matched). */
  exchange?: Exchange;
  /** The failure before any exchange: forged state, error redirect, timeout. */
  failure?: { message: string; code?: string };
  /** The browser's half: the authorization request and where it was redirected (if it was). */
  authorization?: Exchange;
}

const deviates = (observed: string, evidence: Exchange[] = [], quirk?: Quirks): Finding => ({
  status: 'deviates',
  observed,
  evidence,
  ...(quirk ? { quirk } : {}),
});

/** `redirect.code-and-state` (SERVICE.md 4.1): a code was exchanged only after the state matched. */
export function redirectRule(outcome: AuthorizationOutcome): Finding {
  if (outcome.exchange) {
    return { status: 'ok', observed: 'the redirect carried a code and the state unchanged' };
  }
  const failure = outcome.failure ?? { message: 'no redirect arrived' };
  const evidence = outcome.authorization ? [outcome.authorization] : [];
  if (failure.code === 'state_mismatch')
    return deviates('the redirect carried another state', evidence);
  return deviates(`no usable redirect: ${failure.message}`, evidence);
}

/** `token.members` (SERVICE.md 2.3): the three members, the tokens as non-empty strings. */
export function tokenMembersRule(exchange: Exchange): Finding {
  const answer = oauthAnswerOf(exchange);
  if (answer.kind !== 'success') {
    return deviates(`the code exchange failed: ${describeAnswer(exchange)}`, [exchange]);
  }
  const body = answer.body;
  const missing = ['access_token', 'expires_in', 'refresh_token'].filter((m) => !(m in body));
  const notString = ['access_token', 'refresh_token'].filter(
    (m) => m in body && (typeof body[m] !== 'string' || body[m] === ''),
  );
  if (missing.length === 0 && notString.length === 0) {
    return { status: 'ok', observed: `members: ${Object.keys(body).sort().join(', ')}` };
  }
  const problems = [
    ...(missing.length ? [`missing ${missing.join(', ')}`] : []),
    ...(notString.length ? [`not a non-empty string: ${notString.join(', ')}`] : []),
  ];
  // expires_in alone missing is the expiresIn quirk; anything else no mock quirk reproduces.
  const quirk: Quirks | undefined =
    missing.length === 1 && missing[0] === 'expires_in' && notString.length === 0
      ? { expiresIn: 'absent' }
      : undefined;
  return deviates(problems.join('; '), [exchange], quirk);
}

/** `expires_in` as sent: its JSON type and value as a number. */
export type ExpiresIn =
  | { type: 'string' | 'number'; value: number }
  | { type: 'absent' }
  | { type: 'unreadable'; raw: string };

/** Reads `expires_in` of a token response body. */
export function readExpiresInMember(body: Record<string, unknown>): ExpiresIn {
  const raw = body.expires_in;
  if (raw === undefined || raw === null) return { type: 'absent' };
  if (typeof raw === 'number' && Number.isFinite(raw) && raw > 0) {
    return { type: 'number', value: raw };
  }
  if (typeof raw === 'string' && /^\d+(\.\d+)?$/.test(raw.trim()) && Number(raw) > 0) {
    return { type: 'string', value: Number(raw) };
  }
  return { type: 'unreadable', raw: JSON.stringify(raw).slice(0, 40) };
}

/** What waiting `value` milliseconds showed: the token still worked (seconds) or not (milliseconds). */
export interface UnitProbe {
  waitedMs: number;
  /** undefined: the API answered neither 2xx nor 401/403 (the unit stays unknown). */
  stillWorks: boolean | undefined;
  evidence: Exchange;
}

/** The unit `expires_in` was found to have: what a probe proved, else seconds (SPEC §7). */
export function expiresInUnit(probe: UnitProbe | undefined): 'seconds' | 'milliseconds' {
  return probe?.stillWorks === false ? 'milliseconds' : 'seconds';
}

/**
 * `token.expires-in` (SPEC §7): the type, and the unit when `N` milliseconds fitted in --max-wait
 * (a probe waited that long and tried the token); otherwise seconds is assumed and said. No
 * value alone tells the unit: an hour in milliseconds (3600000) is 42 days in seconds, and access
 * tokens of 60 days in seconds (5184000) exist.
 */
export function expiresInRule(
  expiresIn: ExpiresIn,
  probe: UnitProbe | undefined,
  maxWaitMs: number,
  exchange: Exchange,
): Finding {
  if (expiresIn.type === 'absent') {
    return deviates('no expires_in: the lifetime is unknown', [exchange], { expiresIn: 'absent' });
  }
  if (expiresIn.type === 'unreadable') {
    return deviates(`expires_in ${expiresIn.raw} is not a number of seconds`, [exchange]);
  }
  const n = expiresIn.value;
  let unitText: string;
  const unit = expiresInUnit(probe);
  if (!probe) {
    unitText = `seconds assumed (${n} ms does not fit in --max-wait ${maxWaitMs / 1000}s)`;
  } else if (probe.stillWorks === undefined) {
    unitText = `seconds assumed (the API gave no clear answer after ${probe.waitedMs} ms)`;
  } else {
    unitText = probe.stillWorks
      ? `seconds (the token still worked after ${probe.waitedMs} ms)`
      : `milliseconds (the token stopped working after ${probe.waitedMs} ms)`;
  }
  const observed = `expires_in ${n} as a JSON ${expiresIn.type}, ${unitText}`;
  if (unit === 'milliseconds') {
    // The mock sends milliseconds as a string only; a number of milliseconds maps to that too.
    return deviates(observed, probe ? [exchange, probe.evidence] : [exchange], {
      expiresIn: 'milliseconds',
    });
  }
  if (expiresIn.type === 'number') return deviates(observed, [exchange], { expiresIn: 'number' });
  return { status: 'ok', observed };
}

/** A refusal as RFC 6749 §5.2 makes it: an error answer (any shape). */
function refused(exchange: Exchange): boolean {
  return oauthAnswerOf(exchange).kind === 'error';
}

/** `code.single-use` (SERVICE.md 2.2): the second exchange of a code is refused. */
export function codeSingleUseRule(replay: Exchange): Finding {
  if (refused(replay)) return { status: 'ok', observed: `refused: ${describeAnswer(replay)}` };
  return deviates(`the second exchange was ${describeAnswer(replay)}`, [replay]);
}

/**
 * `code.replay-revokes` (RFC 6749 §4.1.2): after the replay, the access token issued for the code
 * fails at the API and its refresh token is refused. Skipped when the API's answer or the
 * refresh's tells nothing (no answer, or neither a success nor a refusal).
 */
export function codeReplayRevokesRule(api: Exchange, refresh: Exchange | undefined): Finding {
  const unknown = unknownStanding(api);
  if (unknown !== undefined) return { status: 'skipped', observed: `after the replay ${unknown}` };
  const refreshKind = refresh === undefined ? undefined : oauthAnswerOf(refresh).kind;
  if (refresh !== undefined && refreshKind !== 'success' && refreshKind !== 'error') {
    return {
      status: 'skipped',
      observed: `after the replay the refresh answered ${describeAnswer(refresh)}, neither tokens nor a refusal`,
    };
  }
  const accessDead = tokenWorked(api) === false;
  const refreshDead = refreshKind !== 'success';
  const observed = `after the replay: access token ${describeAnswer(api)}${
    refresh ? `; refresh ${describeAnswer(refresh)}` : ''
  }`;
  if (accessDead && refreshDead) return { status: 'ok', observed };
  return deviates(observed, refresh ? [api, refresh] : [api]);
}

/** `client.wrong-secret` (RFC 6749 §5.2): refused with invalid_client. */
export function wrongSecretRule(exchange: Exchange): Finding {
  const answer = oauthAnswerOf(exchange);
  const observed = describeAnswer(exchange);
  if (answer.kind === 'error' && answer.code === 'invalid_client') {
    return { status: 'ok', observed: `refused: ${observed}` };
  }
  return deviates(observed, [exchange]);
}

/**
 * `errors.shape` (RFC 6749 §5.2): every OAuth error seen is JSON with an `error` member; all of
 * them as bare codes in text/plain is the errorBody quirk.
 */
export function errorsShapeRule(errors: Exchange[]): Finding {
  const answers = errors.map((e) => ({ e, a: oauthAnswerOf(e) }));
  const seen = answers.filter((x) => x.a.kind === 'error');
  if (seen.length === 0) return { status: 'skipped', observed: 'no OAuth error answer was seen' };
  const shapes = new Set(seen.map((x) => (x.a.kind === 'error' ? x.a.shape : 'other')));
  const count = `${seen.length} error answer${seen.length === 1 ? '' : 's'}`;
  if (shapes.size === 1 && shapes.has('json')) {
    return { status: 'ok', observed: `${count}, all RFC 6749 JSON` };
  }
  const odd = seen.filter((x) => x.a.kind === 'error' && x.a.shape !== 'json').map((x) => x.e);
  if (shapes.size === 1 && shapes.has('text')) {
    return deviates(`${count}, all text/plain holding the error code alone`, odd.slice(0, 2), {
      errorBody: 'text',
    });
  }
  return deviates(`${count}: ${seen.map((x) => describeAnswer(x.e)).join('; ')}`, odd.slice(0, 2));
}

/**
 * `endpoints.token-path` (SERVICE.md 4.2): the token URL in use against `{base_url}/webservice/authorize`.
 * `probe`, when the two differ: what SERVICE.md's path answered (the evidence of a deviation).
 */
export function tokenPathRule(
  baseUrl: string | undefined,
  tokenUrl: string,
  probe?: Exchange,
): Finding {
  if (baseUrl === undefined) {
    return { status: 'skipped', observed: 'no base URL to compare the token URL with' };
  }
  const expected = `${baseUrl}/webservice/authorize`;
  const url = tokenUrl.split('?')[0]!.split('#')[0]!;
  if (url === expected) return { status: 'ok', observed: `token URL ${url}` };
  // The mock's tokenPath is under its base URL; a token URL elsewhere keeps its own path.
  const tokenPath = url.startsWith(`${baseUrl}/`)
    ? url.slice(baseUrl.length)
    : new URL(url).pathname;
  const answered = probe ? `; the documented path answered ${describeAnswer(probe)}` : '';
  return deviates(`token URL ${url} (path ${tokenPath})${answered}`, probe ? [probe] : [], {
    tokenPath,
  });
}
