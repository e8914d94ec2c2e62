import { DasvcError, InterruptedError } from '../errors.js';
import type { SendFn } from '../http/types.js';
import { apiUnusable, oauthAnswerOf, tokenWorked } from './answers.js';
import {
  CheckStopped,
  refusedForTheClient,
  stoppedByCredentials,
  stoppedByRefusal,
  stoppedUnmeasured,
} from './authorization.js';
import { Probes, type CheckTarget } from './probes.js';
import { expectedOf, RULES, type RuleId } from './rule-catalogue.js';
import {
  bearerRefusedRule,
  batchRule,
  discoverRule,
  notificationRule,
  rpcErrorRule,
  scopeNotGrantedRule,
} from './rules/api-rules.js';
import {
  afterExpiryRule,
  newPairRule,
  oldRefusedRule,
  refreshedTokens,
  rotationRule,
} from './rules/refresh-rules.js';
import {
  revocationUnconfirmed,
  revokeAnswerRule,
  revokedAccessRule,
  revokedRefreshRule,
  unknownTokenRule,
} from './rules/revoke-rules.js';
import {
  codeReplayRevokesRule,
  codeSingleUseRule,
  errorsShapeRule,
  expiresInRule,
  expiresInUnit,
  readExpiresInMember,
  redirectRule,
  tokenMembersRule,
  tokenPathRule,
  wrongSecretRule,
  type AuthorizationOutcome,
  type UnitProbe,
} from './rules/token-rules.js';
import type { AuthorizationWitness, Exchange, Finding, Verdict } from './types.js';

/** What the check runs against (SPEC §7, settings of SPEC §2). */
export interface CheckSettings extends CheckTarget {
  /** Base URL, when known (for endpoints.token-path). */
  baseUrl: string | undefined;
  /** The profile's scopes; authorizations ask for the first one alone. */
  scopes: string[];
  /** `--max-wait`: how long the check may wait for a token to expire (ms). */
  maxWaitMs: number;
  /** `--port`: the loopback port of the redirects, 0 for a free one. */
  port: number;
}

/** The I/O of a check, passed in. */
export interface CheckDeps {
  /** Requests of the rules (aborted by Ctrl-C). */
  send: SendFn;
  /**
   * Runs the login flow of `dasvc login` for `scope`, sending its requests with `send` and telling
   * `witness` the authorization URL and the redirects that arrive (LoginFlowDeps.witness).
   */
  authorize(scope: string, send: SendFn, witness: AuthorizationWitness): Promise<unknown>;
  now(): number;
  /** Waits `ms`; rejects with InterruptedError on Ctrl-C. */
  sleep(ms: number): Promise<void>;
  /** Each verdict as soon as it is known (progress lines). */
  onVerdict?(verdict: Verdict): void;
  /** What a person should know: each authorization as it starts, each wait. */
  tell?(message: string): void;
}

/** Past the announced lifetime before trying a token: clocks and transit are not exact. */
const EXPIRY_SLACK_MS = 300;

const PHASE_A: RuleId[] = [
  'redirect.code-and-state',
  'token.members',
  'code.single-use',
  'code.replay-revokes',
  'api.scope-not-granted',
  'jsonrpc.parse-error',
  'jsonrpc.invalid-request',
  'jsonrpc.method-not-found',
  'jsonrpc.notification',
  'jsonrpc.batch',
  'jsonrpc.discover',
];
const PHASE_B_REFRESH: RuleId[] = ['refresh.new-pair', 'refresh.rotation', 'refresh.old-refused'];
const PHASE_B_REVOKE: RuleId[] = ['revoke.answer', 'revoke.access-token', 'revoke.unknown-token'];
const PHASE_B: RuleId[] = [...PHASE_B_REFRESH, ...PHASE_B_REVOKE];
const PHASE_C: RuleId[] = ['token.expires-in', 'refresh.after-expiry', 'revoke.refresh-token'];

interface Authorized {
  outcome: AuthorizationOutcome;
  access?: string;
  refresh?: string;
  body?: Record<string, unknown>;
  /** When the token answer arrived (ms). */
  at: number;
}

/**
 * Runs the selected rules of SPEC §7 against an installation: first those that need no
 * authorization, then up to three authorizations (A: code and JSON-RPC rules, B: refresh, and the
 * revocations of an access token and of an unknown one, C: expiry and refresh-token revoke), each
 * only when one of its rules is selected. Tokens obtained stay in `probes.obtained` for the caller
 * to revoke.
 */
export function startCheck(
  settings: CheckSettings,
  selected: Set<RuleId>,
  deps: CheckDeps,
): { probes: Probes; done: Promise<Verdict[]>; stopped: () => DasvcError | undefined } {
  const probes = new Probes(deps.send, settings);
  const verdicts = new Map<RuleId, Verdict>();
  const want = (id: RuleId) => selected.has(id) && !verdicts.has(id);
  const give = (id: RuleId, finding: Finding) => {
    if (!want(id)) return;
    const verdict: Verdict = { id, expected: expectedOf(id), ...finding };
    verdicts.set(id, verdict);
    deps.onVerdict?.(verdict);
  };
  const skip = (ids: RuleId[], why: string) => {
    for (const id of ids) give(id, { status: 'skipped', observed: why });
  };
  const scope = settings.scopes[0]!;

  let authorizations = 0;
  async function authorize(): Promise<Authorized> {
    authorizations += 1;
    deps.tell?.(`Authorization ${authorizations} of at most 3 (scope ${scope}):`);
    probes.lastLoginExchange = undefined;
    let failure: AuthorizationOutcome['failure'];
    let authorizationUrl: string | undefined;
    let redirect: string | undefined;
    try {
      await deps.authorize(scope, probes.loginSend, (seen) => {
        if ('authorizationUrl' in seen) authorizationUrl = seen.authorizationUrl;
        else redirect = seen.redirect;
      });
    } catch (error) {
      if (error instanceof InterruptedError) throw error;
      // Neither a redirect nor a code exchange: nothing the installation did was seen (a login
      // that timed out, an error answer to the authorization request).
      if (error instanceof DasvcError && redirect === undefined && !probes.lastLoginExchange)
        throw await stopFor(error);
      if (error instanceof DasvcError && refusedForTheClient(error)) throw stoppedByRefusal(error);
      failure = {
        message: error instanceof Error ? error.message : String(error),
        ...(error instanceof DasvcError && error.code ? { code: error.code } : {}),
      };
    }
    const at = deps.now();
    const exchange = probes.lastLoginExchange as Exchange | undefined;
    const outcome: AuthorizationOutcome = {
      ...(exchange ? { exchange } : {}),
      ...(failure ? { failure } : {}),
      ...(authorizationUrl === undefined
        ? {}
        : {
            authorization: {
              request: { method: 'GET', url: authorizationUrl, headers: {} },
              ...(redirect === undefined
                ? { error: failure?.message ?? 'no redirect arrived' }
                : { redirect }),
            },
          }),
    };
    if (authorizations === 1) {
      give('redirect.code-and-state', redirectRule(outcome));
      if (exchange) measured('token.members', exchange, tokenMembersRule);
    }
    const answer = exchange ? oauthAnswerOf(exchange) : undefined;
    if (answer?.kind !== 'success') return { outcome, at };
    const { access, refresh } = refreshedTokens(exchange!);
    return {
      outcome,
      at,
      body: answer.body,
      ...(access ? { access } : {}),
      ...(refresh ? { refresh } : {}),
    };
  }

  /**
   * The stop of an authorization that measured nothing: a refusal of the client's or the person's,
   * else the refusal of the client's own credentials when that is the reason (an unknown client id
   * gets an error page, never a redirect), else the failure itself.
   */
  async function stopFor(error: DasvcError): Promise<CheckStopped> {
    if (refusedForTheClient(error)) return stoppedByRefusal(error);
    if (await ownCredentialsRefused()) return stoppedByCredentials(error.message);
    return stoppedUnmeasured(error);
  }

  /** The revocation of an unknown token with the client's own credentials, once sent. */
  let unknownRevoke: Exchange | undefined;
  const revokeUnknown = async (): Promise<Exchange> =>
    (unknownRevoke ??= await probes.revoke(
      `dasvc-check-unknown-${Math.random().toString(36).slice(2)}`,
      'access_token',
    ));

  /**
   * Whether the installation refuses the client's own credentials (invalid_client to the
   * revocation of an unknown token: revoke.unknown-token's request, sent now if it was not yet).
   */
  async function ownCredentialsRefused(): Promise<boolean> {
    const answer = oauthAnswerOf(await revokeUnknown());
    return answer.kind === 'error' && answer.code === 'invalid_client';
  }

  /** Why the rules of a phase cannot run, when its authorization gave no usable tokens. */
  function unusable(auth: Authorized): string | undefined {
    if (auth.access !== undefined) return undefined;
    if (auth.outcome.failure) return `the authorization failed: ${auth.outcome.failure.message}`;
    return 'the code exchange gave no access token';
  }

  /** A rule measured by one request: skipped when no answer came (nothing to measure). */
  function measured(id: RuleId, exchange: Exchange, rule: (exchange: Exchange) => Finding): void {
    if (exchange.response) give(id, rule(exchange));
    else give(id, { status: 'skipped', observed: `no answer (${exchange.error ?? 'no answer'})` });
  }

  /**
   * endpoints.token-path; when the token URL in use is not SERVICE.md's, SERVICE.md's path is
   * asked (an empty POST: no secret goes there) and its answer is the evidence.
   */
  async function tokenPathFinding(): Promise<Finding> {
    const { baseUrl } = settings;
    const standard = baseUrl === undefined ? undefined : `${baseUrl}/webservice/authorize`;
    if (standard === undefined || settings.endpoints.token.split(/[?#]/)[0] === standard) {
      return tokenPathRule(baseUrl, settings.endpoints.token);
    }
    const probe = await probes.exchange(
      {
        method: 'POST',
        url: standard,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: '',
      },
      false,
    );
    return tokenPathRule(baseUrl, settings.endpoints.token, probe);
  }

  async function noAuthorizationRules(): Promise<void> {
    if (selected.has('client.wrong-secret') || selected.has('errors.shape')) {
      measured('client.wrong-secret', await probes.wrongSecret(), wrongSecretRule);
    }
    if (want('endpoints.token-path')) {
      give('endpoints.token-path', await tokenPathFinding());
    }
    const call = JSON.stringify({ jsonrpc: '2.0', method: 'rpc.discover', id: 1 });
    if (want('api.missing-bearer')) {
      measured('api.missing-bearer', await probes.api(scope, call, undefined), bearerRefusedRule);
    }
    if (want('api.wrong-bearer')) {
      const wrong = await probes.api(scope, call, 'dasvc-check-not-a-token');
      measured('api.wrong-bearer', wrong, bearerRefusedRule);
    }
  }

  async function phaseA(): Promise<void> {
    const auth = await authorize();
    const why = unusable(auth);
    if (why !== undefined) return skip(PHASE_A, why);
    const access = auth.access!;
    // The JSON-RPC rules measure the API behind its bearer check: a fresh token must get through.
    const discover = await probes.call(scope, 'rpc.discover', access);
    const apiWhy = apiUnusable(discover);
    if (apiWhy !== undefined) {
      skip(
        PHASE_A.filter((id) => id.startsWith('jsonrpc.') || id.startsWith('api.')),
        apiWhy,
      );
    }
    if (want('api.scope-not-granted')) {
      const other = settings.scopes[1];
      if (other === undefined)
        give('api.scope-not-granted', { status: 'skipped', observed: 'the profile has one scope' });
      else
        measured(
          'api.scope-not-granted',
          await probes.call(other, 'rpc.discover', access),
          scopeNotGrantedRule,
        );
    }
    const rpcError = (code: number) => (exchange: Exchange) => rpcErrorRule(exchange, code);
    if (want('jsonrpc.parse-error')) {
      const body = '{"jsonrpc": "2.0", "method"';
      measured('jsonrpc.parse-error', await probes.api(scope, body, access), rpcError(-32700));
    }
    if (want('jsonrpc.invalid-request')) {
      const body = JSON.stringify({ jsonrpc: '2.0', method: 42, id: 1 });
      measured('jsonrpc.invalid-request', await probes.api(scope, body, access), rpcError(-32600));
    }
    if (want('jsonrpc.method-not-found')) {
      const call = await probes.call(scope, 'dasvc.check.no-such-method', access);
      measured('jsonrpc.method-not-found', call, rpcError(-32601));
    }
    if (want('jsonrpc.notification')) {
      const body = JSON.stringify({ jsonrpc: '2.0', method: 'rpc.discover' });
      measured('jsonrpc.notification', await probes.api(scope, body, access), notificationRule);
    }
    if (want('jsonrpc.batch')) {
      const body = JSON.stringify([
        { jsonrpc: '2.0', method: 'rpc.discover', id: 1 },
        { jsonrpc: '2.0', method: 'dasvc.check.no-such-method', id: 2 },
      ]);
      measured('jsonrpc.batch', await probes.api(scope, body, access), (x) => batchRule(x, [1, 2]));
    }
    give('jsonrpc.discover', discoverRule(discover));
    if (!want('code.single-use') && !want('code.replay-revokes')) return;
    const replay = await probes.resend(auth.outcome.exchange!);
    measured('code.single-use', replay, codeSingleUseRule);
    const notMeasurable =
      tokenWorked(discover) !== true
        ? 'the access token did not work before the replay'
        : !replay.response
          ? `the replay got no answer (${replay.error ?? 'no answer'})`
          : undefined;
    if (notMeasurable !== undefined) {
      give('code.replay-revokes', { status: 'skipped', observed: notMeasurable });
      return;
    }
    const api = await probes.call(scope, 'rpc.discover', access);
    const refresh = auth.refresh === undefined ? undefined : await probes.refresh(auth.refresh);
    give('code.replay-revokes', codeReplayRevokesRule(api, refresh));
  }

  /**
   * refresh.new-pair and refresh.rotation: the pair's refresh. Returns the access token to go on
   * with (the new one, when the refresh gave one) and, when the used refresh token cannot be tried
   * again, refresh.old-refused's finding.
   */
  async function refreshRules(
    access: string,
    refresh: string,
  ): Promise<{ access: string; oldRefused?: Finding }> {
    const refreshed = await probes.refresh(refresh);
    measured('refresh.new-pair', refreshed, (x) => newPairRule(access, x));
    const rotation = rotationRule(refresh, refreshed);
    give('refresh.rotation', rotation);
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
  async function revokeRules(access: string): Promise<void> {
    const before = want('revoke.access-token')
      ? await probes.call(scope, 'rpc.discover', access)
      : undefined;
    const revoke = await probes.revoke(access, 'access_token');
    measured('revoke.answer', revoke, revokeAnswerRule);
    if (before !== undefined) {
      const measurable =
        tokenWorked(before) === true && revocationUnconfirmed(revoke) === undefined;
      const after = measurable ? await probes.call(scope, 'rpc.discover', access) : undefined;
      give('revoke.access-token', revokedAccessRule(before, revoke, after));
    }
    if (want('revoke.unknown-token'))
      give('revoke.unknown-token', unknownTokenRule(await revokeUnknown(), revoke));
  }

  async function phaseB(): Promise<void> {
    const auth = await authorize();
    const why = unusable(auth);
    if (why !== undefined) return skip(PHASE_B, why);
    let access = auth.access!;
    let oldRefused: Finding | undefined;
    if (PHASE_B_REFRESH.some(want)) {
      if (auth.refresh === undefined) {
        skip(PHASE_B_REFRESH, 'the token answer had no refresh_token');
      } else {
        ({ access, oldRefused } = await refreshRules(access, auth.refresh));
      }
    }
    if (PHASE_B_REVOKE.some(want)) await revokeRules(access);
    if (!want('refresh.old-refused')) return;
    if (oldRefused !== undefined) give('refresh.old-refused', oldRefused);
    else measured('refresh.old-refused', await probes.refresh(auth.refresh!), oldRefusedRule);
  }

  async function sleepUntil(time: number, why: string): Promise<void> {
    const ms = Math.max(0, time - deps.now());
    if (ms === 0) return;
    deps.tell?.(`Waiting ${(ms / 1000).toFixed(1)} s ${why}…`);
    await deps.sleep(ms);
  }

  /**
   * Without `expires_in` the access lifetime is observed instead (SPEC §7: refresh.after-expiry
   * runs when the observed lifetime is at most --max-wait): the token is tried every twentieth
   * of --max-wait (at least 250 ms apart, so about 20 tries), until the API refuses it or
   * --max-wait (and the usual 0.3 s of slack) has passed since it was issued.
   */
  async function expiredWithin(access: string, issuedAt: number): Promise<boolean> {
    if (settings.maxWaitMs <= 0) return false;
    const deadline = issuedAt + settings.maxWaitMs + EXPIRY_SLACK_MS;
    const step = Math.max(250, settings.maxWaitMs / 20);
    deps.tell?.(
      `Trying the access token for up to ${settings.maxWaitMs / 1000} s to see it expire (refresh.after-expiry)…`,
    );
    while (deps.now() < deadline) {
      await deps.sleep(Math.min(step, deadline - deps.now()));
      if (tokenWorked(await probes.call(scope, 'rpc.discover', access)) === false) return true;
    }
    return false;
  }

  async function phaseC(): Promise<void> {
    const auth = await authorize();
    const why = unusable(auth);
    if (why !== undefined) return skip(PHASE_C, why);
    let access = auth.access!;
    let refresh = auth.refresh;
    const expiresIn = readExpiresInMember(auth.body!);
    let probe: UnitProbe | undefined;
    if ('value' in expiresIn && expiresIn.value <= settings.maxWaitMs) {
      await sleepUntil(
        auth.at + expiresIn.value + EXPIRY_SLACK_MS,
        'to tell milliseconds from seconds (token.expires-in)',
      );
      const evidence = await probes.call(scope, 'rpc.discover', access);
      probe = { waitedMs: deps.now() - auth.at, stillWorks: tokenWorked(evidence), evidence };
    }
    give(
      'token.expires-in',
      expiresInRule(expiresIn, probe, settings.maxWaitMs, auth.outcome.exchange!),
    );
    let pairEnded = false;
    if (want('refresh.after-expiry')) {
      const lifetimeMs =
        'value' in expiresIn
          ? expiresIn.value * (expiresInUnit(probe) === 'milliseconds' ? 1 : 1000)
          : undefined;
      if (refresh === undefined) {
        give('refresh.after-expiry', {
          status: 'skipped',
          observed: 'the token answer had no refresh_token',
        });
      } else if (lifetimeMs === undefined && !(await expiredWithin(access, auth.at))) {
        const max = settings.maxWaitMs / 1000;
        give('refresh.after-expiry', {
          status: 'skipped',
          observed:
            max === 0
              ? 'the access lifetime is unknown (no expires_in), and --max-wait is 0s'
              : `the access lifetime is unknown (no expires_in), and the token still worked after --max-wait ${max}s`,
        });
      } else if (lifetimeMs !== undefined && lifetimeMs > settings.maxWaitMs) {
        give('refresh.after-expiry', {
          status: 'skipped',
          observed: `the access lifetime ${lifetimeMs / 1000}s exceeds --max-wait ${settings.maxWaitMs / 1000}s`,
        });
      } else {
        if (lifetimeMs !== undefined) {
          await sleepUntil(
            auth.at + lifetimeMs + EXPIRY_SLACK_MS,
            'for the access token to expire (refresh.after-expiry)',
          );
        }
        const attempt = await probes.refresh(refresh);
        give('refresh.after-expiry', afterExpiryRule(deps.now() - auth.at, attempt));
        const next = refreshedTokens(attempt);
        if (next.access !== undefined) {
          access = next.access;
          refresh = next.refresh ?? refresh;
        } else pairEnded = true;
      }
    }
    if (!want('revoke.refresh-token')) return;
    if (refresh === undefined || pairEnded) {
      const reason =
        refresh === undefined
          ? 'the token answer had no refresh_token'
          : 'the refresh token ended with its access token (refresh.after-expiry); no live pair is left';
      give('revoke.refresh-token', { status: 'skipped', observed: reason });
      return;
    }
    const revoke = await probes.revoke(refresh, 'refresh_token');
    if (revocationUnconfirmed(revoke) !== undefined) {
      give('revoke.refresh-token', revokedRefreshRule(revoke));
      return;
    }
    const again = await probes.refresh(refresh);
    const api = await probes.call(scope, 'rpc.discover', access);
    give('revoke.refresh-token', revokedRefreshRule(revoke, { refresh: again, api }));
  }

  let stoppedBy: DasvcError | undefined;
  const done = (async () => {
    await noAuthorizationRules();
    if (probes.sent > 0 && !probes.answered) {
      // Nothing answered: no login can succeed either, and waiting for one (up to --timeout)
      // would tell nothing more. The caller ends with exit 4 (SPEC §4).
      skip([...PHASE_A, ...PHASE_B, ...PHASE_C], 'no answer from the installation');
    }
    try {
      if (PHASE_A.some(want)) await phaseA();
      if (PHASE_B.some(want)) await phaseB();
      if (PHASE_C.some(want)) await phaseC();
    } catch (error) {
      if (!(error instanceof CheckStopped)) throw error;
      // The rules that ran keep their lines; the others say why they did not (SPEC §7: each
      // rule prints one line), and the caller ends with the failure's exit code.
      stoppedBy = error.refusal;
      skip([...PHASE_A, ...PHASE_B, ...PHASE_C], error.why);
    }
    give('errors.shape', errorsShapeRule(probes.oauthErrors));
    return RULES.map(([id]) => verdicts.get(id)).filter((v): v is Verdict => v !== undefined);
  })();
  return { probes, done, stopped: () => stoppedBy };
}
