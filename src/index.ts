/**
 * The library's face (SPEC §1): the programmatic client `dasvc()`, the error class its failures
 * share, and their types. Everything else in src/ is internal (docs/design/public-api.md).
 */
export { DasvcError, type ErrorKind, type ExitCode, type JsonRpcErrorObject } from './errors.js';
export { dasvc, type DasvcClient, type DasvcOptions } from './client/dasvc.js';
export type { BatchCall, BatchResult } from './client/rpc-calls.js';
export type { LogoutOutcome } from './client/logout.js';
export type { RevokeOutcome } from './client/revoke-tokens.js';
export type { Tell } from './client/client-deps.js';
export type { LoginOptions, LoginOutcome } from './client/login.js';
export type { RevokeAnswer } from './client/revoke.js';
export type { SessionStatus } from './client/status.js';
export type { TokenSet } from './oauth/token-response.js';
export type { HttpRequest, HttpResponse, SendFn } from './http/types.js';
export type {
  BatchAnswerOf,
  BatchCallOf,
  ErrorOf,
  MethodOf,
  NamedParamsOf,
  ParamsOf,
  ResultOf,
  ScopeOf,
  TypedCalls,
  Untyped,
} from './client/typed-api.js';
