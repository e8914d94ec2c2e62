import type { SendFn } from '../http/types.js';
import { Probes, type CheckTarget } from './probes.js';
import { expectedOf, RULES, type RuleId } from './rule-catalogue.js';
import type { LoginWitness } from '../oauth/login-flow.js';
import type { Exchange, Finding, Verdict } from './types.js';

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
  authorize(scope: string, send: SendFn, witness: LoginWitness): Promise<unknown>;
  now(): number;
  /** Waits `ms`; rejects with InterruptedError on Ctrl-C. */
  sleep(ms: number): Promise<void>;
  /** Each verdict as soon as it is known (progress lines). */
  onVerdict?(verdict: Verdict): void;
  /** What a person should know: each authorization as it starts, each wait. */
  tell?(message: string): void;
}

/**
 * One run of the check, shared by its phases: the settings and I/O, the probes, and the verdicts
 * given so far. A rule gets one verdict, the first given, and only when it is selected.
 */
export class CheckRun {
  readonly probes: Probes;
  /** The scope every authorization asks for. */
  readonly scope: string;
  /** How many authorizations have started. */
  authorizations = 0;
  private readonly verdicts = new Map<RuleId, Verdict>();
  private unknownRevoke: Exchange | undefined;

  constructor(
    readonly settings: CheckSettings,
    private readonly selected: Set<RuleId>,
    readonly deps: CheckDeps,
  ) {
    this.probes = new Probes(deps.send, settings);
    this.scope = settings.scopes[0]!;
  }

  /** Whether a rule is selected and still has no verdict. */
  readonly want = (id: RuleId): boolean => this.selected.has(id) && !this.verdicts.has(id);

  /** Whether a rule is selected, with or without a verdict. */
  selects(id: RuleId): boolean {
    return this.selected.has(id);
  }

  /** Whether a rule's verdict is that the installation deviates. */
  deviates(id: RuleId): boolean {
    return this.verdicts.get(id)?.status === 'deviates';
  }

  give(id: RuleId, finding: Finding): void {
    if (!this.want(id)) return;
    const verdict: Verdict = { id, expected: expectedOf(id), ...finding };
    this.verdicts.set(id, verdict);
    this.deps.onVerdict?.(verdict);
  }

  skip(ids: RuleId[], why: string): void {
    for (const id of ids) this.give(id, { status: 'skipped', observed: why });
  }

  /** Why an authorization the check needed gave no access token: the first such, if any. */
  unauthorized: string | undefined;

  /** The rules of an authorization that gave no access token: skipped, and the run knows why. */
  skipUnauthorized(ids: RuleId[], why: string): void {
    this.unauthorized ??= why;
    this.skip(ids, why);
  }

  /** A rule measured by one request: skipped when no answer came (nothing to measure). */
  measured(id: RuleId, exchange: Exchange, rule: (exchange: Exchange) => Finding): void {
    if (exchange.response) this.give(id, rule(exchange));
    else this.skip([id], `no answer (${exchange.error ?? 'no answer'})`);
  }

  /**
   * The revocation of an unknown token with the client's own credentials, sent once: both
   * revoke.unknown-token and the diagnosis of a failed authorization read it.
   */
  async revokeUnknown(): Promise<Exchange> {
    return (this.unknownRevoke ??= await this.probes.revoke(
      `dasvc-check-unknown-${Math.random().toString(36).slice(2)}`,
      'access_token',
    ));
  }

  async sleepUntil(time: number, why: string): Promise<void> {
    const ms = Math.max(0, time - this.deps.now());
    if (ms === 0) return;
    this.deps.tell?.(`Waiting ${(ms / 1000).toFixed(1)} s ${why}…`);
    await this.deps.sleep(ms);
  }

  /** The verdicts given, in report order. */
  list(): Verdict[] {
    return RULES.map(([id]) => this.verdicts.get(id)).filter((v): v is Verdict => v !== undefined);
  }
}
