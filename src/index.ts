/** The library's face (SPEC §1): re-exports only; the client lives in src/client/. */
export * from './errors.js';
export type { HttpRequest, HttpResponse, SendFn } from './http/types.js';
export { createHttpClient, type HttpClientOptions } from './http/http-client.js';
export {
  apiUrlFor,
  defaultEndpoints,
  normalizeBaseUrl,
  type Endpoints,
  type ParamsPlacement,
} from './oauth/endpoints.js';
export {
  buildAuthorizationUrl,
  loopbackRedirectUri,
  type AuthorizationRequest,
} from './oauth/authorization-url.js';
export { createPkce, randomState, s256, type Pkce } from './oauth/pkce.js';
export { parseCallback, parsePastedRedirect } from './oauth/callback.js';
export {
  buildOAuthRequest,
  buildRefreshRequest,
  buildRevocationRequest,
  buildTokenRequest,
  type ClientCredentials,
  type TokenTypeHint,
} from './oauth/token-request.js';
export {
  processRevocationResponse,
  processTokenResponse,
  readExpiresIn,
  type TokenSet,
} from './oauth/token-response.js';
export {
  runLoginFlow,
  type LoginFlowDeps,
  type LoginFlowOptions,
  type LoginResult,
} from './oauth/login-flow.js';
export {
  buildApiRequest,
  buildCall,
  processApiResponse,
  rpcErrorFrom,
  type JsonRpcRequest,
} from './rpc/jsonrpc.js';
export { parseParams, type ParamsSources } from './rpc/params.js';
export {
  canRefresh,
  isExpired,
  isRefreshDue,
  refreshMarginSeconds,
  secondsLeft,
} from './store/expiry.js';
export { configDir, configFile } from './store/config-path.js';
export {
  activeProfileName,
  DEFAULT_PROFILE,
  ProfileStore,
  type Profile,
  type StoreData,
} from './store/profile-store.js';
export {
  currentTokens,
  forgetTokens,
  type RefreshSettings,
  type SessionDeps,
  type SessionTokens,
} from './client/session.js';
export {
  fileTokenStore,
  memoryTokenStore,
  type SaveTokens,
  type TokenStore,
} from './store/token-store.js';
export { dasvc, type DasvcClient, type DasvcOptions } from './client/dasvc.js';
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
export {
  Client,
  type BatchCall,
  type BatchResult,
  type ClientDeps,
  type LogoutOutcome,
  type RevokeOutcome,
} from './client/client.js';
export type { LoginOptions, LoginOutcome } from './client/login.js';
export type { RevokeAnswer } from './client/revoke.js';
export type { SessionStatus } from './client/status.js';
export { SETTINGS, type SettingSpec } from './client/settings.js';
export { withFileLock, type LockOptions } from './store/file-lock.js';
