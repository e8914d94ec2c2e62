import { AuthError, DasvcError, InterruptedError, sameKind } from '../errors.js';
import type { SendFn } from '../http/types.js';
import { oauthAnswerOf, tokenWorked } from './answers.js';
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
  /** What a person should know while the check waits. */
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
const PHASE_B: RuleId[] = [
  'refresh.new-pair',
  'refresh.rotation',
  'refresh.old-refused',
  'revoke.answer',
  'revoke.access-token',
];
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
 * Authorization failures that measure the client's settings or the person at the browser, not the
 * installation: a denial at the consent page (SPEC §5's own answer to one), client credentials or
 * a scope the installation refuses. The check cannot go on and says so with the §4 exit code (3)
 * rather than a deviation (1), which would tell a CI job that a conformant installation is not.
 * A changed `state`, an error redirect the installation should not give, or no redirect at all
 * stay deviations of `redirect.code-and-state`.
 */
const NOT_THE_INSTALLATION = new Set([
  'access_denied',
  'invalid_client',
  'unauthorized_client',
  'invalid_scope',
]);

/** An authorization refused for the client's or the person's reason: the check goes no further. */
class CheckStopped extends Error {
  constructor(readonly refusal: DasvcError) {
    super(refusal.message);
  }
}

function stopsTheCheck(error: unknown): boolean {
  return error instanceof DasvcError && NOT_THE_INSTALLATION.has(error.code ?? '');
}

/**
 * Runs the selected rules of SPEC §7 against an installation: first those that need no
 * authorization, then up to three authorizations (A: code and JSON-RPC rules, B: refresh and
 * access-token revoke, C: expiry and refresh-token revoke), each only when one of its rules is
 * selected. Tokens obtained stay in `probes.obtained` for the caller to revoke.
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

  let firstAuthorization = true;
  /** Set when an authorization got no redirect within --timeout: the next ones are not tried. */
  let noRedirect: string | undefined;
  async function authorize(): Promise<Authorized> {
    probes.lastLoginExchange = undefined;
    let failure: AuthorizationOutcome['failure'];
    let authorizationUrl: string | undefined;
    let redirect: string | undefined;
    // Another wait of --timeout for a browser that got nowhere the first time tells nothing new.
    if (noRedirect !== undefined) {
      return { outcome: { failure: { message: `not tried: ${noRedirect}` } }, at: deps.now() };
    }
    try {
      await deps.authorize(scope, probes.loginSend, (seen) => {
        if ('authorizationUrl' in seen) authorizationUrl = seen.authorizationUrl;
        else redirect = seen.redirect;
      });
    } catch (error) {
      if (error instanceof InterruptedError) throw error;
      if (stopsTheCheck(error)) {
        const e = error as DasvcError;
        throw new CheckStopped(
          sameKind(e, `the check's authorization did not succeed: ${e.message}`, {
            hint:
              e.code === 'access_denied'
                ? 'approve the consent page: every rule after it needs the tokens'
                : 'check --client-id, --client-secret and --scope (or the profile) against the installation',
          }),
        );
      }
      failure = {
        message: error instanceof Error ? error.message : String(error),
        ...(error instanceof DasvcError && error.code ? { code: error.code } : {}),
      };
      if (failure.code === 'login_timeout' && redirect === undefined) {
        noRedirect = `the authorization before got no redirect (${failure.message})`;
        // The installation refused the client's own credentials too: its client id is likely
        // unknown there (an error page, never a redirect). The settings, not the installation.
        if (await ownCredentialsRefused()) {
          throw new CheckStopped(
            new AuthError(
              `the check's authorization did not succeed: no redirect arrived, and the installation refused the client's credentials (invalid_client)`,
              {
                code: 'invalid_client',
                hint: 'check --client-id and --client-secret (or the profile) against the installation',
              },
            ),
          );
        }
      }
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
    if (firstAuthorization) {
      firstAuthorization = false;
      give('redirect.code-and-state', redirectRule(outcome));
      if (exchange) give('token.members', tokenMembersRule(exchange));
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

  /** The revocation of an unknown token with the client's own credentials, once sent. */
  let unknownRevoke: Exchange | undefined;
  const revokeUnknown = async (): Promise<Exchange> =>
    (unknownRevoke ??= await probes.revoke(
      `dasvc-check-unknown-${Math.random().toString(36).slice(2)}`,
      'access_token',
    ));

  /**
   * Whether the installation refuses the client's own credentials (invalid_client to the
   * revocation of an unknown token: revoke.unknown-token's request, sent now if it did not run).
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
    if (want('revoke.unknown-token')) {
      measured('revoke.unknown-token', await revokeUnknown(), unknownTokenRule);
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
    if (want('api.scope-not-granted')) {
      const other = settings.scopes[1];
      if (other === undefined)
        give('api.scope-not-granted', { status: 'skipped', observed: 'the profile has one scope' });
      else
        give(
          'api.scope-not-granted',
          scopeNotGrantedRule(await probes.call(other, 'rpc.discover', access)),
        );
    }
    if (want('jsonrpc.parse-error')) {
      give(
        'jsonrpc.parse-error',
        rpcErrorRule(await probes.api(scope, '{"jsonrpc": "2.0", "method"', access), -32700),
      );
    }
    if (want('jsonrpc.invalid-request')) {
      const body = JSON.stringify({ jsonrpc: '2.0', method: 42, id: 1 });
      give('jsonrpc.invalid-request', rpcErrorRule(await probes.api(scope, body, access), -32600));
    }
    if (want('jsonrpc.method-not-found')) {
      give(
        'jsonrpc.method-not-found',
        rpcErrorRule(await probes.call(scope, 'dasvc.check.no-such-method', access), -32601),
      );
    }
    if (want('jsonrpc.notification')) {
      const body = JSON.stringify({ jsonrpc: '2.0', method: 'rpc.discover' });
      give('jsonrpc.notification', notificationRule(await probes.api(scope, body, access)));
    }
    if (want('jsonrpc.batch')) {
      const body = JSON.stringify([
        { jsonrpc: '2.0', method: 'rpc.discover', id: 1 },
        { jsonrpc: '2.0', method: 'dasvc.check.no-such-method', id: 2 },
      ]);
      give('jsonrpc.batch', batchRule(await probes.api(scope, body, access), [1, 2]));
    }
    const discover = await probes.call(scope, 'rpc.discover', access);
    give('jsonrpc.discover', discoverRule(discover));
    if (!want('code.single-use') && !want('code.replay-revokes')) return;
    const alive = tokenWorked(discover);
    const replay = await probes.resend(auth.outcome.exchange!);
    give('code.single-use', codeSingleUseRule(replay));
    if (alive !== true) {
      give('code.replay-revokes', {
        status: 'skipped',
        observed: 'the access token did not work before the replay',
      });
      return;
    }
    const api = await probes.call(scope, 'rpc.discover', access);
    const refresh = auth.refresh === undefined ? undefined : await probes.refresh(auth.refresh);
    give('code.replay-revokes', codeReplayRevokesRule(api, refresh));
  }

  async function phaseB(): Promise<void> {
    const auth = await authorize();
    const why =
      unusable(auth) ??
      (auth.refresh === undefined ? 'the token answer had no refresh_token' : undefined);
    if (why !== undefined) return skip(PHASE_B, why);
    const refreshed = await probes.refresh(auth.refresh!);
    give('refresh.new-pair', newPairRule(auth.access!, refreshed));
    const rotation = rotationRule(auth.refresh!, refreshed);
    give('refresh.rotation', rotation);
    const next = refreshedTokens(refreshed);
    const access = next.access ?? auth.access!;
    if (want('revoke.answer') || want('revoke.access-token')) {
      const revoke = await probes.revoke(access, 'access_token');
      give('revoke.answer', revokeAnswerRule(revoke));
      give(
        'revoke.access-token',
        revokedAccessRule(revoke, await probes.call(scope, 'rpc.discover', access)),
      );
    }
    // The used refresh token is tried again also when it came back unchanged (no rotation): an
    // installation may then still refuse it as used, or keep accepting it (SPEC §7's two quirks).
    if (rotation.status === 'skipped' || next.refresh === undefined) {
      const reason =
        rotation.status === 'skipped'
          ? rotation.observed
          : 'the refresh answered no refresh token, so no used one is left to try';
      give('refresh.old-refused', { status: 'skipped', observed: reason });
      return;
    }
    give('refresh.old-refused', oldRefusedRule(await probes.refresh(auth.refresh!)));
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
    const again = await probes.refresh(refresh);
    const api = await probes.call(scope, 'rpc.discover', access);
    give('revoke.refresh-token', revokedRefreshRule(revoke, again, api));
  }

  let stopped: DasvcError | undefined;
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
      // rule prints one line), and the caller ends with the refusal's exit code.
      stopped = error.refusal;
      skip([...PHASE_A, ...PHASE_B, ...PHASE_C], "not run: the check's authorization was refused");
      // A rule that used the client's credentials (revoke.unknown-token) and met the same
      // refusal measured the credentials, not the installation: no deviation of it.
      for (const [id, verdict] of verdicts) {
        const refusedAlike = verdict.evidence?.some((x) => {
          const answer = oauthAnswerOf(x);
          return answer.kind === 'error' && answer.code === error.refusal.code;
        });
        if (verdict.status === 'deviates' && refusedAlike) {
          verdicts.set(id, {
            id,
            expected: verdict.expected,
            status: 'skipped',
            observed: `not measured: the installation refused the client's own credentials (${error.refusal.code})`,
          });
        }
      }
    }
    give('errors.shape', errorsShapeRule(probes.oauthErrors));
    return RULES.map(([id]) => verdicts.get(id)).filter((v): v is Verdict => v !== undefined);
  })();
  return { probes, done, stopped: () => stopped };
}
