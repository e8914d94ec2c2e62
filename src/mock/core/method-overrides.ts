// Methods answered by functions given with the mock's options (`methods`), before the fixtures:
// an integrator's test says what one call answers, typed from the declarations of `dasvc types`
// (SPEC §10), with the contract of a computed method module.
import type {
  MethodOf,
  NamedParamsOf,
  ResultOf,
  ScopeOf,
  Untyped,
} from '../../client/typed-api.js';
import { UsageError } from '../../errors.js';
import { isObject } from '../../util/guards.js';
import type { Fixtures } from '../fixture-format/fixture-format.js';

/**
 * What a computed method (a fixture's method module) or an override receives: the params by
 * name (those sent by position bound to their declared names), the authorizing user and the
 * instance called.
 */
export interface MethodContext<P = Record<string, unknown>, S extends string = string> {
  params: P;
  user: string;
  instance: S;
}

/**
 * A computed method or an override: returns the result (or a promise of it), or throws
 * `{ code, message, data? }` to answer that JSON-RPC error. `MethodHandler<Api, 'crm',
 * 'contacts.get'>` types it from the declarations of `dasvc types`; plain `MethodHandler` takes
 * any params and returns anything.
 */
export type MethodHandler<
  A = Untyped,
  S extends keyof A = keyof A,
  M extends keyof A[S] = keyof A[S],
> = [A] extends [Untyped]
  ? (context: MethodContext) => unknown
  : (
      context: MethodContext<NamedParamsOf<A, S, M>, Extract<S, string>>,
    ) => ResultOf<A, S, M> | Promise<ResultOf<A, S, M>>;

/**
 * The `methods` option: per instance, per method, the function that answers it; no `rpc.` name
 * (rpc.discover is the contract's own, and the mock refuses one).
 */
export type MethodOverrides<A = Untyped> = [A] extends [Untyped]
  ? Record<string, Record<string, MethodHandler>>
  : {
      [S in ScopeOf<A>]?: {
        [M in Exclude<MethodOf<A, S>, `rpc.${string}`>]?: MethodHandler<A, S, M>;
      };
    };

/** The overrides by instance and method, as the API route looks them up. */
export type OverrideTable = Map<string, Map<string, (context: MethodContext) => unknown>>;

/**
 * The `methods` option checked against the fixtures: every instance must be one they have (it
 * needs users who may reach it), every method a function and no `rpc.` name (reserved, and
 * `rpc.discover` is the contract's own). Undefined when there are none.
 */
export function checkMethodOverrides(
  methods: unknown,
  fixtures: Fixtures,
  proxy: boolean,
): OverrideTable | undefined {
  if (methods === undefined) return undefined;
  const usage = (message: string, facts?: Record<string, unknown>) =>
    new UsageError(`methods: ${message}`, { code: 'bad_option', ...(facts ? { facts } : {}) });
  if (!isObject(methods)) throw usage('give an object: { instance: { method: function } }');
  if (proxy) throw usage('every call goes upstream with proxy; answer methods without it');
  const table: OverrideTable = new Map();
  for (const [instance, byMethod] of Object.entries(methods)) {
    if (byMethod === undefined) continue;
    if (!fixtures.instances.has(instance)) {
      // An option of the library alone: the message names the instances there are.
      const instances = [...fixtures.instances.keys()];
      throw usage(
        `the fixtures have no instance ${JSON.stringify(instance)} (instances: ${instances.join(', ')})`,
        { instances },
      );
    }
    if (!isObject(byMethod)) throw usage(`${instance}: give an object { method: function }`);
    const answers = new Map<string, (context: MethodContext) => unknown>();
    for (const [method, handler] of Object.entries(byMethod)) {
      if (handler === undefined) continue;
      if (method === '' || method.startsWith('rpc.'))
        throw usage(
          `${instance}: ${JSON.stringify(method)} is no method to answer (rpc.* is reserved)`,
        );
      if (typeof handler !== 'function')
        throw usage(`${instance} ${method}: give a function, got ${typeof handler}`);
      answers.set(method, handler as (context: MethodContext) => unknown);
    }
    table.set(instance, answers);
  }
  return table;
}
