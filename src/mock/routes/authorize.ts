import type { ClientFixture } from '../fixture-format/fixture-format.js';
import type { MockContext } from '../core/context.js';
import type { MockResponse } from '../core/types.js';
import { renderConsentPage, renderErrorPage, type NotRedirected } from './consent-page.js';
import { buildRedirect, redirectUriProblem } from './redirect-uri.js';
import { decodeComponent, firstRead, type OAuthParams } from './oauth-params.js';
import { explain, htmlResponse, redirectResponse } from '../core/responses.js';
import { scopeList } from './scope-list.js';

/** A validated authorization request (SERVICE.md 4.1, RFC 7636 §4.3). */
interface AuthorizationRequest {
  client: ClientFixture;
  redirectUri: string;
  scopes: string[];
  state: string;
  /** `state` as the request wrote it, when it can be echoed as is (see echoable). */
  rawState?: string;
  challenge?: string;
  challengeMethod?: 'S256' | 'plain';
  /** The request's own parameters, re-sent by the consent form. */
  hidden: [string, string][];
}

const CARRIED = ['response_type', 'client_id', 'redirect_uri', 'scope', 'state'];
const PKCE_CARRIED = ['code_challenge', 'code_challenge_method'];
/**
 * What a query value may hold as is: printable ASCII but `&` and `#` (which would end it). The
 * request target's own text qualifies (llhttp takes `|`, `"`, `[` and more raw, as browsers and
 * fetch send them); nothing here can break a Location header.
 */
const QUERY_TEXT = /^[\x21-\x22\x24-\x25\x27-\x7e]*$/;
/** The consent form's hidden field carrying the raw `state` from the GET to the POST. */
const RAW_STATE = 'raw_state';
/** What an authorization request reads (RFC 6749 §4.1.1, RFC 7636 §4.3); any other is ignored. */
const AUTHORIZATION_READS = new Set([...CARRIED, ...PKCE_CARRIED]);
/** What the consent form's POST reads: the request again, and the user's answer. */
const CONSENT_READS = new Set([...AUTHORIZATION_READS, 'decision', 'user', RAW_STATE]);

/**
 * SPEC §5: `state` goes back "byte-for-byte as received": its text as the request wrote it (`a+b`
 * stays `a+b`, `a|b` stays `a|b`), when that text is plain query text that reads as the same value.
 */
function echoable(raw: string | undefined, state: string): string | undefined {
  if (raw === undefined || !QUERY_TEXT.test(raw)) return undefined;
  return decodeComponent(raw) === state ? raw : undefined;
}

function errorPage(error: string, description: string, because?: NotRedirected): MockResponse {
  return explain(htmlResponse(400, renderErrorPage(error, description, because)), {
    code: error,
    reason: description,
  });
}

/** RFC 6749 §4.1.2.1 error redirect: `error`, `state`, then `error_description` when given. */
function errorRedirect(
  redirectUri: string,
  error: string,
  state: string | undefined,
  description?: string,
  rawState?: string,
): MockResponse {
  return redirectResponse(
    buildRedirect(
      redirectUri,
      [
        ['error', error],
        ['state', state],
        ['error_description', description],
      ],
      { state: rawState },
    ),
    { code: error, reason: description ?? 'the user denied consent' },
  );
}

/** Checks the request; an answer (error page or error redirect) or the request. */
function validate(
  ctx: MockContext,
  params: OAuthParams,
  reads: ReadonlySet<string>,
): MockResponse | AuthorizationRequest {
  const v = params.values;
  const malformed = firstRead(params.malformed, reads);
  if (malformed !== undefined) {
    // A value that is not UTF-8 cannot be echoed back unchanged (state), so nothing is redirected.
    return errorPage(
      'invalid_request',
      `parameter ${malformed} is not valid UTF-8 percent-encoding`,
      malformed === 'state'
        ? 'unechoable'
        : ['client_id', 'redirect_uri'].includes(malformed)
          ? 'untrusted'
          : 'unreadable',
    );
  }
  for (const name of ['client_id', 'redirect_uri']) {
    if (params.repeated.includes(name))
      return errorPage('invalid_request', `parameter ${name} is given more than once`);
  }
  const clientId = v.get('client_id');
  if (clientId === undefined) return errorPage('invalid_request', 'missing parameter: client_id');
  const client = ctx.fixtures.clients.get(clientId);
  if (!client) return errorPage('invalid_client', `unknown client_id "${clientId}"`);
  const redirectUri = v.get('redirect_uri');
  if (redirectUri === undefined)
    return errorPage('invalid_request', 'missing parameter: redirect_uri');
  const problem = redirectUriProblem(redirectUri);
  if (problem) return errorPage('invalid_request', problem);

  // From here on the redirect URI is trusted enough to carry errors back (RFC 6749 §4.1.2.1).
  const state = params.repeated.includes('state') ? undefined : v.get('state');
  // The GET's own text, or on the consent form's POST the one it carried over (the form's own
  // field, which an authorization request does not read).
  const carried = reads.has(RAW_STATE) ? v.get(RAW_STATE) : undefined;
  const rawState = state === undefined ? undefined : echoable(params.rawState ?? carried, state);
  const fail = (error: string, description: string) =>
    errorRedirect(redirectUri, error, state, description, rawState);
  const repeated = firstRead(params.repeated, reads);
  if (repeated !== undefined)
    return fail('invalid_request', `parameter ${repeated} is given more than once`);
  const responseType = v.get('response_type');
  if (responseType === undefined)
    return fail('invalid_request', 'missing parameter: response_type');
  if (responseType !== 'code') {
    return fail('unsupported_response_type', `response_type must be "code", got "${responseType}"`);
  }
  const scope = v.get('scope');
  if (scope === undefined) return fail('invalid_request', 'missing parameter: scope');
  if (state === undefined) return fail('invalid_request', 'missing parameter: state');
  const { scopes, unknown } = scopeList(scope, ctx.fixtures.instances);
  if (scopes.length === 0) return fail('invalid_scope', 'scope names no instance');
  if (unknown !== undefined) return fail('invalid_scope', `unknown instance "${unknown}" in scope`);

  const request: AuthorizationRequest = {
    client,
    redirectUri,
    scopes,
    state,
    ...(rawState === undefined ? {} : { rawState }),
    hidden: [],
  };
  const challenge = v.get('code_challenge');
  const method = v.get('code_challenge_method');
  // SPEC §5: any challenge the request carried binds the code, checked only at the token step
  // (invalid_grant); a method alone asks for nothing. A challenge outside RFC 7636's form is kept
  // too, and named in the token step's refusal (see token.ts), so a client's PKCE bug still shows.
  if (challenge !== undefined) {
    if (method !== undefined && method !== 'S256' && method !== 'plain') {
      return fail('invalid_request', 'code_challenge_method must be S256 or plain');
    }
    request.challenge = challenge;
    request.challengeMethod = method === 'S256' ? 'S256' : 'plain';
  }
  for (const name of [...CARRIED, ...PKCE_CARRIED]) {
    const value = v.get(name);
    if (value !== undefined) request.hidden.push([name, value]);
  }
  if (rawState !== undefined) request.hidden.push([RAW_STATE, rawState]);
  return request;
}

/** Approval as `userId`: a code, or invalid_scope when the user cannot reach an instance. */
function approve(ctx: MockContext, request: AuthorizationRequest, userId: string): MockResponse {
  const user = ctx.fixtures.users.get(userId)!;
  const denied = request.scopes.find((s) => !user.instances.has(s));
  if (denied !== undefined) {
    const refused = errorRedirect(
      request.redirectUri,
      'invalid_scope',
      request.state,
      `user ${userId} cannot access instance "${denied}"`,
      request.rawState,
    );
    return explain(refused, { user: userId });
  }
  const code = ctx.state.issueCode({
    clientId: request.client.id,
    redirectUri: request.redirectUri,
    user: userId,
    scopes: request.scopes,
    ...(request.challenge === undefined
      ? {}
      : { challenge: request.challenge, challengeMethod: request.challengeMethod! }),
  });
  return redirectResponse(
    buildRedirect(
      request.redirectUri,
      [
        ['state', request.state],
        ['code', code],
      ],
      { state: request.rawState },
    ),
    { user: userId },
  );
}

function consentPage(
  ctx: MockContext,
  request: AuthorizationRequest,
  status = 200,
  error?: string,
  selectedUser?: string,
): MockResponse {
  return htmlResponse(
    status,
    renderConsentPage(ctx.fixtures, {
      // Path-relative: an absolute URL from the Host header would let a rebinding DNS name
      // (Host: evil.example) receive the form.
      action: `${ctx.basePath}/webservice/authorize/`,
      clientId: request.client.id,
      scopes: request.scopes,
      hidden: request.hidden,
      ...(error === undefined ? {} : { error }),
      ...(selectedUser === undefined ? {} : { selectedUser }),
    }),
  );
}

/** GET authorization endpoint (SERVICE.md 4.1): the consent page, or approval with --auto-approve. */
export function handleAuthorizationRequest(ctx: MockContext, params: OAuthParams): MockResponse {
  const request = validate(ctx, params, AUTHORIZATION_READS);
  if (!('client' in request)) return withClient(request, params);
  if (ctx.autoApprove !== undefined) {
    return withClient(approve(ctx, request, ctx.autoApprove), params);
  }
  return withClient(consentPage(ctx, request), params);
}

/** The client the request names, in the explanation (SPEC §8). */
function withClient(response: MockResponse, params: OAuthParams): MockResponse {
  const client = params.values.get('client_id');
  return client === undefined ? response : explain(response, { client });
}

/**
 * The consent form's POST: `decision=approve` with `user`, or `decision=deny`. `foreignOrigin`:
 * the Origin the browser named, when it is not the mock's own host: a page of another site
 * posting the form (approving as any user, the code sent wherever it says) is refused, as the
 * control API refuses it (CSRF).
 */
export function handleConsentSubmission(
  ctx: MockContext,
  params: OAuthParams,
  foreignOrigin?: string,
): MockResponse {
  if (foreignOrigin !== undefined) {
    return errorPage(
      'invalid_request',
      `the consent form was sent from another origin (${foreignOrigin}); nothing was approved`,
      'foreign',
    );
  }
  return withClient(decide(ctx, params), params);
}

function decide(ctx: MockContext, params: OAuthParams): MockResponse {
  const request = validate(ctx, params, CONSENT_READS);
  if (!('client' in request)) return request;
  const decision = params.values.get('decision');
  // SPEC §5: exactly `<redirect_uri>?error=access_denied&state=<state>`.
  if (decision === 'deny') {
    const denied = errorRedirect(
      request.redirectUri,
      'access_denied',
      request.state,
      undefined,
      request.rawState,
    );
    // The form's user select, when it was sent: who denied (SPEC §8, the user where it applies).
    const user = params.values.get('user');
    return user !== undefined && ctx.fixtures.users.has(user) ? explain(denied, { user }) : denied;
  }
  if (decision !== 'approve') {
    return explain(consentPage(ctx, request, 400, 'Choose Approve or Deny.'), {
      code: 'invalid_request',
      reason: 'consent form sent without decision=approve or decision=deny',
    });
  }
  const userId = params.values.get('user') ?? ctx.autoApprove;
  if (userId === undefined || !ctx.fixtures.users.has(userId)) {
    const what = userId === undefined ? 'Choose a user.' : `Unknown user "${userId}".`;
    return explain(consentPage(ctx, request, 400, what), {
      code: 'invalid_request',
      reason:
        userId === undefined
          ? 'consent form sent without a user'
          : `consent form names unknown user "${userId}"`,
      ...(userId === undefined ? {} : { user: userId }),
    });
  }
  return approve(ctx, request, userId);
}
