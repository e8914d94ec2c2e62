// What watches the proxied exchanges besides the recorder: the secret collector, which
// learns every secret that passes so that none is ever written or shown, and the contract check
// of --validate.
import type { Fixtures } from '../fixture-format/fixture-format.js';
import { contractProblems } from './contract.js';
import { pairCalls, type RpcCall } from './rpc-exchange.js';
import { printable } from '../../util/printable.js';
import type { SecretValues } from '../../util/secret-values.js';
import type { Exchange, ProxyTap } from './proxy-tap.js';

export const API_PREFIX = '/webservice/json/';
const OAUTH_PREFIX = '/webservice/authorize';

/** The instance of an API path (`/webservice/json/<instance>`), or undefined. */
export function apiInstance(path: string): string | undefined {
  if (!path.startsWith(API_PREFIX)) return undefined;
  try {
    const name = decodeURIComponent(path.slice(API_PREFIX.length)).replace(/\/$/, '');
    return name === '' || name.includes('/') ? undefined : name;
  } catch {
    return undefined;
  }
}

const parsed = new WeakMap<Exchange, RpcCall[]>();

/**
 * The JSON-RPC calls of an API exchange paired with the answers, whatever its status: read once
 * for every tap that looks (a big answer is parsed once, and let go with the exchange).
 */
export function callsOf(exchange: Exchange): RpcCall[] {
  let calls = parsed.get(exchange);
  if (calls === undefined) {
    calls =
      exchange.method === 'POST' ? pairCalls(exchange.requestBody, exchange.responseBody) : [];
    parsed.set(exchange, calls);
  }
  return calls;
}

function isForm(exchange: Exchange): boolean {
  return (exchange.requestHeader('content-type') ?? '').includes(
    'application/x-www-form-urlencoded',
  );
}

/**
 * Learns tokens, codes, client secrets, verifiers, state and Authorization values as they pass,
 * and in API calls the values of members named like secrets (params, results, error data).
 */
export class SecretTap implements ProxyTap {
  constructor(private readonly secrets: SecretValues) {}

  wantsBody(path: string): boolean {
    // Token answers carry the tokens; consent pages are small.
    return path.startsWith(OAUTH_PREFIX);
  }

  observe(exchange: Exchange): void {
    const s = this.secrets;
    s.addParams(exchange.query);
    if (isForm(exchange)) s.addParams(exchange.requestBody);
    s.addAuthorization(exchange.requestHeader('authorization'));
    const location = exchange.responseHeader('location');
    if (location !== undefined) {
      const q = location.indexOf('?');
      if (q !== -1) s.addParams(location.slice(q + 1).split('#')[0]!);
    }
    if (exchange.responseBody !== undefined && exchange.path.startsWith(OAUTH_PREFIX)) {
      s.addJson(exchange.responseBody);
    }
    if (apiInstance(exchange.path) !== undefined) {
      for (const call of callsOf(exchange)) {
        s.addMembers(call.params);
        const outcome = call.outcome;
        if (outcome) s.addMembers('result' in outcome ? outcome.result : outcome.error.data);
      }
    }
  }
}

/** One entry of `GET /_mock/violations`. */
export interface Violation {
  time: string;
  instance: string;
  method: string;
  problem: string;
  params: unknown;
}

/** At most this many violations are kept (the oldest go first). */
const MAX_VIOLATIONS = 1000;

/** `--validate`: each call checked against the fixtures' documents; the answer is untouched. */
export class ContractTap implements ProxyTap {
  private readonly entries: Violation[] = [];

  constructor(
    private readonly fixtures: Fixtures,
    private readonly secrets: SecretValues,
    private readonly warn: ((line: string) => void) | undefined,
    private readonly now: () => number,
  ) {}

  wantsBody(path: string): boolean {
    return path.startsWith(API_PREFIX);
  }

  observe(exchange: Exchange): void {
    const instance = apiInstance(exchange.path);
    if (instance === undefined || exchange.method !== 'POST') return;
    // Only a 200 answers calls; another status is no answer of theirs to check. A request that
    // is no valid JSON-RPC request is the client's mistake, no call of the contract.
    const calls = callsOf(exchange)
      .filter((call) => call.invalid === undefined)
      .map((call): RpcCall =>
        exchange.status === 200 || !call.outcome
          ? call
          : { method: call.method, params: call.params },
      );
    // A client may send anything as the instance (the path) or the method name, a token too.
    const where = this.secrets.maskText(instance);
    for (const found of contractProblems(this.fixtures, instance, calls)) {
      const problem = this.secrets.maskText(found.problem);
      // A method named "" shows as such, not as a gap in the line.
      const method = found.method === '' ? '""' : this.secrets.maskText(found.method);
      // One line per violation, whatever the instance, method or problem carry.
      this.warn?.(printable(`contract: ${where} ${method}: ${problem}`));
      // Kept as found and masked when listed: a secret learned later (a password sent by
      // position, then by name) is masked in the entries before it too.
      this.entries.push({
        time: new Date(this.now()).toISOString(),
        instance,
        method: found.method,
        problem: found.problem,
        params: found.params,
      });
      if (this.entries.length > MAX_VIOLATIONS) this.entries.shift();
    }
  }

  /** The violations kept, every secret seen so far masked. */
  list(): Violation[] {
    const s = this.secrets;
    return this.entries.map((v) => ({
      time: v.time,
      instance: s.maskText(v.instance),
      method: s.maskText(v.method),
      problem: s.maskText(v.problem),
      params: s.mask(v.params),
    }));
  }

  clear(): void {
    this.entries.length = 0;
  }
}
