// The types that make the client, the mock's computed methods and the msw overrides check calls
// against the declarations `dasvc types` writes (SPEC §10): `Api` maps each scope to its methods,
// each `{ params; result; errors? }`. Types only: nothing here exists at run time.
import type { JsonRpcErrorObject } from '../errors.js';

declare const untyped: unique symbol;

/**
 * The type argument of `dasvc()` (and of the mock's options) when none is given: no declarations,
 * so any scope, method and params, and results of type `unknown`, as without types.
 */
export interface Untyped {
  readonly [untyped]: true;
}

/** Whether `A` is a contract (declarations of `dasvc types`) rather than none. */
export type IsTyped<A> = [A] extends [Untyped] ? false : true;

/** The scopes (instance IDs) an `Api` declares. */
export type ScopeOf<A> = Extract<keyof A, string>;

/** The methods of scope `S`. */
export type MethodOf<A, S extends keyof A> = Extract<keyof A[S], string>;

/** Params of a method as a call may give them: by name, by position, as it declares. */
export type ParamsOf<A, S extends keyof A, M extends keyof A[S]> = A[S][M] extends {
  params: infer P;
}
  ? P
  : unknown;

/** The result of a method. */
export type ResultOf<A, S extends keyof A, M extends keyof A[S]> = A[S][M] extends {
  result: infer R;
}
  ? R
  : unknown;

/** The JSON-RPC errors a method declares (`never` for none); any call may also meet others. */
export type ErrorOf<A, S extends keyof A, M extends keyof A[S]> = A[S][M] extends {
  errors?: infer E;
}
  ? Exclude<E, undefined>
  : never;

/**
 * Params by name, as the mock hands them to a computed method or an override (it binds params
 * given by position to their names): a method that takes them by position only declares those
 * names as `paramsByName`; one without either has none to give.
 */
export type NamedParamsOf<A, S extends keyof A, M extends keyof A[S]> = A[S][M] extends {
  paramsByName: infer N;
}
  ? N
  : [Exclude<ParamsOf<A, S, M>, readonly unknown[]>] extends [never]
    ? Record<string, unknown>
    : Exclude<ParamsOf<A, S, M>, readonly unknown[]>;

/** Whether params may be left out: a method whose params are all optional. */
type ParamsOptional<P> = [Record<never, never>] extends [P]
  ? true
  : [[]] extends [P]
    ? true
    : false;

/** The params argument of `rpc()`: required when the method requires some. */
export type ParamsArgs<P> = ParamsOptional<P> extends true ? [params?: P] : [params: P];

/** One call of a typed batch: a method of the scope, its params as it declares them. */
export type BatchCallOf<A, S extends keyof A> = {
  [M in MethodOf<A, S>]: ParamsOptional<ParamsOf<A, S, M>> extends true
    ? { method: M; params?: ParamsOf<A, S, M>; notify?: boolean }
    : { method: M; params: ParamsOf<A, S, M>; notify?: boolean };
}[MethodOf<A, S>];

/** The answer to one call of a batch: its result, or the JSON-RPC error object. */
export type BatchAnswerOf<A, S extends keyof A, M extends keyof A[S]> =
  { result: ResultOf<A, S, M> } | { error: ErrorOf<A, S, M> | JsonRpcErrorObject };

/** The answers of a batch, in call order, notifications left out (they get none). */
export type BatchAnswersOf<A, S extends keyof A, C> = C extends readonly [infer H, ...infer R]
  ? H extends { notify: true }
    ? BatchAnswersOf<A, S, R>
    : [AnswerTo<A, S, H>, ...BatchAnswersOf<A, S, R>]
  : C extends readonly []
    ? []
    : C extends readonly (infer H)[]
      ? AnswerTo<A, S, H>[]
      : never;

type AnswerTo<A, S extends keyof A, H> = H extends { method: infer M extends keyof A[S] }
  ? BatchAnswerOf<A, S, M>
  : never;

/**
 * `rpc()` and `batch()` checked against an `Api`: the scope, the method name and the params,
 * with the result (and each batch answer) typed as declared.
 */
export interface TypedCalls<A> {
  /** One call (SPEC §1 `client.rpc`): resolves with `result`, rejects with the JSON-RPC error. */
  rpc<S extends ScopeOf<A>, M extends MethodOf<A, S>>(
    scope: S,
    method: M,
    ...params: ParamsArgs<ParamsOf<A, S, M>>
  ): Promise<ResultOf<A, S, M>>;
  /** A batch (SPEC §1 `client.batch`): one answer per call that is not a notification, in call order. */
  batch<S extends ScopeOf<A>, C extends readonly BatchCallOf<A, S>[] | []>(
    scope: S,
    calls: C,
  ): Promise<BatchAnswersOf<A, S, C>>;
}
