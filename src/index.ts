import { createHttpClient } from './http/http-client.js';
import type { SendFn } from './http/types.js';
import {
  apiUrlFor,
  defaultEndpoints,
  normalizeBaseUrl,
  type Endpoints,
  type ParamsPlacement,
} from './oauth/endpoints.js';
import {
  DEFAULT_LOGIN_TIMEOUT_MS,
  runLoginFlow,
  type LoginFlowDeps,
  type LoginResult,
} from './oauth/login-flow.js';
import {
  buildRefreshRequest,
  buildRevocationRequest,
  type TokenTypeHint,
} from './oauth/token-request.js';
import {
  processRevocationResponse,
  processTokenResponse,
  type TokenSet,
} from './oauth/token-response.js';
import { buildApiRequest, buildCall, processApiResponse, rpcErrorFrom } from './rpc/jsonrpc.js';

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
} from './store/session.js';
export { withFileLock, type LockOptions } from './store/file-lock.js';

/** Settings of a programmatic client (SPEC §1 export `dasvc`). */
export interface DasvcClientOptions {
  baseUrl?: string;
  clientId: string;
  clientSecret: string;
  /** Overrides of the SERVICE.md §4 endpoint URLs (`api` is a template with `{scope}`). */
  endpoints?: Partial<Endpoints>;
  /** `query` (SERVICE.md §4, default) or `body` (RFC 6749 servers). */
  params?: ParamsPlacement;
  /** Custom transport; default: the CLI's HTTP client (timeouts, proxy variables). */
  send?: SendFn;
}

/** The programmatic client: the same code paths the CLI uses, without the terminal. */
export interface DasvcClient {
  endpoints: Endpoints;
  /**
   * Authorization-code flow with a loopback listener (RFC 6749 §4.1, RFC 8252 §7.3): `openBrowser`
   * receives the URL; `tell` receives the messages a human should see (default: stderr).
   */
  login(
    options: { scope: string; port?: number; pkce?: boolean; timeoutMs?: number } & Omit<
      LoginFlowDeps,
      'send' | 'now' | 'tell'
    > & { tell?: LoginFlowDeps['tell'] },
  ): Promise<LoginResult>;
  /** Refresh token request (SERVICE.md §4.3). */
  refresh(refreshToken: string): Promise<TokenSet>;
  /** Revoke token request (SERVICE.md §4.4); resolves with the service's answer. */
  revoke(token: string, hint: TokenTypeHint): Promise<unknown>;
  /** One JSON-RPC call (SERVICE.md §4.5); resolves with `result`, rejects with ServiceError on an error object. */
  rpc<T = unknown>(
    scope: string,
    accessToken: string,
    method: string,
    params?: unknown,
    id?: number,
  ): Promise<T>;
}

/** Creates a programmatic client for one installation (SPEC §1: login flow, refresh, revoke, rpc). */
export function dasvc(options: DasvcClientOptions): DasvcClient {
  const defaults =
    options.baseUrl === undefined ? undefined : defaultEndpoints(normalizeBaseUrl(options.baseUrl));
  const merged = { ...defaults, ...options.endpoints };
  for (const name of ['authorize', 'token', 'refresh', 'revoke', 'api'] as const) {
    if (merged[name] === undefined) throw new TypeError(`dasvc: give baseUrl or endpoints.${name}`);
  }
  const endpoints = merged as Endpoints;
  const send = options.send ?? createHttpClient();
  const client = { clientId: options.clientId, clientSecret: options.clientSecret };
  const placement = options.params ?? 'query';
  return {
    endpoints,
    login: (login) =>
      runLoginFlow(
        {
          authorizeUrl: endpoints.authorize,
          tokenUrl: endpoints.token,
          client,
          scope: login.scope,
          placement,
          port: login.port ?? 0,
          pkce: login.pkce,
          timeoutMs: login.timeoutMs ?? DEFAULT_LOGIN_TIMEOUT_MS,
        },
        {
          ...login,
          tell: login.tell ?? ((message) => void process.stderr.write(`${message}\n`)),
          send,
          now: Date.now,
        },
      ),
    refresh: async (refreshToken) =>
      processTokenResponse(
        await send(
          buildRefreshRequest({ url: endpoints.refresh, client, refreshToken, placement }),
        ),
        Date.now(),
        'refresh request',
        refreshToken,
      ),
    revoke: async (token, hint) =>
      processRevocationResponse(
        await send(
          buildRevocationRequest({ url: endpoints.revoke, client, token, hint, placement }),
        ),
      ),
    rpc: async <T>(
      scope: string,
      accessToken: string,
      method: string,
      params: unknown = {},
      id = 1,
    ) => {
      const call = buildCall(method, params, id);
      // Passing the call checks the answer's id and shape against it, as the CLI does.
      const answer = processApiResponse(
        await send(buildApiRequest(apiUrlFor(endpoints.api, scope), accessToken, call)),
        scope,
        call,
      );
      if (answer.kind === 'none') return undefined as T;
      const error = rpcErrorFrom(answer.body);
      if (error) throw error;
      return (answer.body as { result: T }).result;
    },
  };
}
