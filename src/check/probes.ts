import { InterruptedError, NetworkError } from '../errors.js';
import type { HttpRequest, HttpResponse, SendFn } from '../http/types.js';
import type { Endpoints, ParamsPlacement } from '../oauth/endpoints.js';
import { apiUrlFor } from '../oauth/endpoints.js';
import {
  buildOAuthRequest,
  buildRefreshRequest,
  buildRevocationRequest,
  type ClientCredentials,
  type TokenTypeHint,
} from '../oauth/token-request.js';
import { oauthAnswerOf } from './answers.js';
import type { Exchange } from './types.js';

/** Where the check talks to and as whom (SPEC §2 settings, resolved). */
export interface CheckTarget {
  client: ClientCredentials;
  endpoints: Endpoints;
  placement: ParamsPlacement;
}

/**
 * The check's requests (SPEC §7): each one recorded as an Exchange that never throws for a
 * missing answer (the rule reports it), every token an answer carried remembered so that it can be
 * revoked at the end, and every OAuth error answer kept for `errors.shape`.
 */
export class Probes {
  /** Tokens this run obtained, with the hint to revoke them by. */
  readonly obtained = new Map<string, TokenTypeHint>();
  /** OAuth error answers seen (for errors.shape). */
  readonly oauthErrors: Exchange[] = [];
  /** Every request of the run. */
  readonly requests = new AnswerCount();
  /** Calls to the API, which may live elsewhere (`--api-url`). */
  readonly apiCalls = new AnswerCount();

  constructor(
    private readonly send: SendFn,
    readonly target: CheckTarget,
  ) {}

  /** Sends one request and records it; only Ctrl-C throws. */
  async exchange(request: HttpRequest, oauth: boolean): Promise<Exchange> {
    let exchange: Exchange;
    try {
      exchange = { request, response: await this.send(request) };
    } catch (error) {
      if (error instanceof InterruptedError) throw error;
      exchange = { request, error: error instanceof Error ? error.message : String(error) };
    }
    this.requests.count(exchange);
    if (oauth) this.note(exchange);
    return exchange;
  }

  /**
   * A SendFn for the login flow: recorded like every probe, a missing answer thrown as before. Its
   * POST is the code exchange (every OAuth request is a POST); a GET is the authorization request
   * sent as the browser would, which is no OAuth endpoint's answer (nor errors.shape's).
   */
  readonly loginSend: SendFn = async (request): Promise<HttpResponse> => {
    const codeExchange = request.method === 'POST';
    const exchange = await this.exchange(request, codeExchange);
    if (codeExchange) this.lastLoginExchange = exchange;
    if (exchange.response) return exchange.response;
    throw new NetworkError(exchange.error ?? 'no answer', { code: 'no_answer' });
  };

  /** The token request the last login flow sent (the code exchange). */
  lastLoginExchange: Exchange | undefined;

  private note(exchange: Exchange): void {
    const answer = oauthAnswerOf(exchange);
    if (answer.kind === 'error') this.oauthErrors.push(exchange);
    if (answer.kind !== 'success') return;
    const { access_token: access, refresh_token: refresh } = answer.body;
    if (typeof refresh === 'string' && refresh !== '') this.obtained.set(refresh, 'refresh_token');
    if (typeof access === 'string' && access !== '') this.obtained.set(access, 'access_token');
  }

  /** Sends again a request already sent (a code replay). */
  resend(exchange: Exchange): Promise<Exchange> {
    return this.exchange(exchange.request, true);
  }

  refresh(refreshToken: string, client = this.target.client): Promise<Exchange> {
    const { endpoints, placement } = this.target;
    return this.exchange(
      buildRefreshRequest({ url: endpoints.refresh, client, refreshToken, placement }),
      true,
    );
  }

  revoke(token: string, hint: TokenTypeHint): Promise<Exchange> {
    const { endpoints, placement, client } = this.target;
    return this.exchange(
      buildRevocationRequest({ url: endpoints.revoke, client, token, hint, placement }),
      true,
    );
  }

  /** A token request with a wrong client secret and a code that was never issued. */
  wrongSecret(): Promise<Exchange> {
    const { endpoints, placement, client } = this.target;
    const params = {
      client_id: client.clientId,
      client_secret: `${client.clientSecret}-not-the-secret`,
      grant_type: 'authorization_code',
      code: 'dasvc-check-no-such-code',
      redirect_uri: 'http://127.0.0.1/callback',
    };
    return this.exchange(buildOAuthRequest(endpoints.token, params, placement), true);
  }

  /** One POST to the API of `scope` with a raw body; `token` undefined sends no Authorization. */
  async api(scope: string, body: string, token: string | undefined): Promise<Exchange> {
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      accept: 'application/json',
    };
    if (token !== undefined) headers.authorization = `Bearer ${token}`;
    const url = apiUrlFor(this.target.endpoints.api, scope);
    const exchange = await this.exchange({ method: 'POST', url, headers, body }, false);
    this.apiCalls.count(exchange);
    return exchange;
  }

  /** A JSON-RPC call of `method` (id 1) with `token`. */
  call(scope: string, method: string, token: string | undefined): Promise<Exchange> {
    return this.api(scope, JSON.stringify({ jsonrpc: '2.0', method, id: 1 }), token);
  }
}

/** Requests sent, whether any got an HTTP answer, and why the first that got none did not. */
export class AnswerCount {
  sent = 0;
  answered = false;
  failure: string | undefined;

  count(exchange: Exchange): void {
    this.sent += 1;
    if (exchange.response) this.answered = true;
    else this.failure ??= exchange.error ?? 'no answer';
  }

  /** Some were sent and none was answered. */
  get unanswered(): boolean {
    return this.sent > 0 && !this.answered;
  }
}

/**
 * Revokes every token a run obtained (SPEC §7), refresh tokens first (which may end their access
 * tokens too), with `send` that Ctrl-C does not abort. Returns how many could not be confirmed.
 */
export async function revokeObtained(
  obtained: Map<string, TokenTypeHint>,
  target: CheckTarget,
  send: SendFn,
): Promise<number> {
  let failed = 0;
  const revoke = async ([token, hint]: [string, TokenTypeHint]) => {
    const { endpoints, placement, client } = target;
    try {
      const response = await send(
        buildRevocationRequest({ url: endpoints.revoke, client, token, hint, placement }),
      );
      // An installation that refuses unknown (already dead) tokens answers 400: also done.
      if (response.status >= 500) failed += 1;
    } catch {
      failed += 1;
    }
  };
  const entries = [...obtained];
  await Promise.all(entries.filter(([, hint]) => hint === 'refresh_token').map(revoke));
  await Promise.all(entries.filter(([, hint]) => hint === 'access_token').map(revoke));
  return failed;
}
