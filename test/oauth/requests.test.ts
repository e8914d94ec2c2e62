import { describe, expect, it } from 'vitest';
import { AuthError, NetworkError, ServiceError, UsageError } from '../../src/errors.js';
import { buildAuthorizationUrl, loopbackRedirectUri } from '../../src/oauth/authorization-url.js';
import {
  apiUrlFor,
  checkEndpoint,
  defaultEndpoints,
  normalizeBaseUrl,
  parsePlacement,
} from '../../src/oauth/endpoints.js';
import { createPkce, randomState, s256 } from '../../src/oauth/pkce.js';
import { safeEqual } from '../../src/util/secrets.js';
import {
  buildOAuthRequest,
  buildRefreshRequest,
  buildRevocationRequest,
  buildTokenRequest,
} from '../../src/oauth/token-request.js';

const client = { clientId: 'demo-client', clientSecret: 'demo-secret' };

describe('endpoints (SERVICE.md §4)', () => {
  it('derives the five URLs from the base URL, tolerating a trailing slash', () => {
    expect(defaultEndpoints('http://h:1/base/')).toEqual({
      authorize: 'http://h:1/base/webservice/authorize/',
      token: 'http://h:1/base/webservice/authorize',
      refresh: 'http://h:1/base/webservice/authorize/refresh_token',
      revoke: 'http://h:1/base/webservice/authorize/revoke',
      api: 'http://h:1/base/webservice/json/{scope}',
    });
  });
  it('rejects base URLs that are not http(s)', () => {
    expect(() => normalizeBaseUrl('ftp://x')).toThrow(UsageError);
    expect(() => normalizeBaseUrl('not a url')).toThrow(UsageError);
  });
  // Regression: the endpoint paths went after a query or fragment (`/?x=1/webservice/…`).
  it('rejects a base URL with a query or fragment', () => {
    for (const url of ['http://h:1/?x=1', 'http://h:1/base#frag', 'http://h:1/?'])
      expect(() => normalizeBaseUrl(url), url).toThrow(/must not carry a query or fragment/);
  });
  it('refuses a user name or password in the base URL, and never shows the password', () => {
    // However it is written: URL parsers take `http:u:pw@h` and a leading space too.
    for (const url of [
      'http://u:PW-123@h:1',
      'http://u@h:1/base',
      'ftp://u:PW-123@h',
      'http:u:PW-123@h',
      'http:\\\\u:PW-123@h',
      ' http://u:PW-123@h',
      'http://u:PW-123/x@h',
    ])
      expect(() => normalizeBaseUrl(url), url).toThrow(
        expect.objectContaining({ message: expect.not.stringContaining('PW-123') }),
      );
    expect(() => normalizeBaseUrl('http://u:PW-123@h:1')).toThrow(
      /must not carry a user name or password: http:\/\/u:\[redacted\]@h:1\/$/,
    );
  });
  it('fills the API template and refuses scopes that would change the path', () => {
    expect(apiUrlFor('https://g/api/{scope}/rpc', 'crm')).toBe('https://g/api/crm/rpc');
    expect(() => apiUrlFor('https://g/{scope}', '../admin')).toThrow(UsageError);
    // Dot segments: the URL would lose them and the call, its token with it, go elsewhere.
    for (const dots of ['.', '..'])
      expect(() => apiUrlFor('https://g/api/{scope}/rpc', dots)).toThrow(/not \. nor \.\./);
    expect(apiUrlFor('https://g/{scope}', '...')).toBe('https://g/...');
    expect(() => checkEndpoint('api', 'https://g/api')).toThrow(/\{scope\}/);
  });
  it('reads the parameter placement', () => {
    expect(parsePlacement('body')).toBe('body');
    expect(() => parsePlacement('header')).toThrow(UsageError);
  });
});

describe('authorization URL (SERVICE.md §4.1, RFC 7636)', () => {
  it('carries the five parameters and PKCE', () => {
    const url = new URL(
      buildAuthorizationUrl({
        authorizeUrl: 'http://h/webservice/authorize/',
        clientId: 'demo-client',
        redirectUri: loopbackRedirectUri(4321),
        scope: 'crm wiki',
        state: 'st',
        codeChallenge: 'ch',
      }),
    );
    expect(url.pathname).toBe('/webservice/authorize/');
    expect(Object.fromEntries(url.searchParams)).toEqual({
      response_type: 'code',
      client_id: 'demo-client',
      redirect_uri: 'http://127.0.0.1:4321/callback',
      scope: 'crm wiki',
      state: 'st',
      code_challenge: 'ch',
      code_challenge_method: 'S256',
    });
  });
  it('leaves PKCE out when not asked and keeps an existing query', () => {
    const url = new URL(
      buildAuthorizationUrl({
        authorizeUrl: 'http://h/auth?tenant=a',
        clientId: 'c',
        redirectUri: 'r',
        scope: 's',
        state: 't',
      }),
    );
    expect(url.searchParams.get('tenant')).toBe('a');
    expect(url.searchParams.has('code_challenge')).toBe(false);
  });
});

describe('PKCE and state', () => {
  it('computes the RFC 7636 appendix B example', () => {
    expect(s256('dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk')).toBe(
      'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
    );
  });
  it('makes fresh 256-bit values', () => {
    const a = createPkce();
    expect(a.verifier).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(a.challenge).toBe(s256(a.verifier));
    expect(randomState()).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(randomState()).not.toBe(randomState());
  });
  it('compares in constant time, including different lengths', () => {
    expect(safeEqual('abc', 'abc')).toBe(true);
    expect(safeEqual('abc', 'abd')).toBe(false);
    expect(safeEqual('abc', 'abcd')).toBe(false);
  });
});

describe('token, refresh and revoke requests', () => {
  it('puts the parameters in the query string of a POST by default (SERVICE.md §4)', () => {
    const request = buildTokenRequest({
      url: 'http://h/webservice/authorize',
      client,
      code: 'C',
      redirectUri: 'http://127.0.0.1:1/callback',
      codeVerifier: 'V',
      placement: 'query',
    });
    expect(request.method).toBe('POST');
    expect(request.body).toBeUndefined();
    const url = new URL(request.url);
    expect(Object.fromEntries(url.searchParams)).toEqual({
      client_id: 'demo-client',
      client_secret: 'demo-secret',
      grant_type: 'authorization_code',
      code: 'C',
      redirect_uri: 'http://127.0.0.1:1/callback',
      code_verifier: 'V',
    });
  });
  it('puts them in a form body with --params body (RFC 6749 §4.1.3)', () => {
    const request = buildRefreshRequest({
      url: 'http://h/oauth/token?x=1',
      client,
      refreshToken: 'R',
      placement: 'body',
    });
    expect(request.url).toBe('http://h/oauth/token?x=1');
    expect(request.headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect(Object.fromEntries(new URLSearchParams(request.body))).toEqual({
      client_id: 'demo-client',
      client_secret: 'demo-secret',
      grant_type: 'refresh_token',
      refresh_token: 'R',
    });
  });
  it('builds the revoke request with its hint (SERVICE.md §4.4)', () => {
    const request = buildRevocationRequest({
      url: 'http://h/r',
      client,
      token: 'T',
      hint: 'refresh_token',
      placement: 'query',
    });
    expect(new URL(request.url).searchParams.get('token_type_hint')).toBe('refresh_token');
    expect(new URL(request.url).searchParams.get('token')).toBe('T');
  });
  it('leaves undefined parameters out', () => {
    const request = buildOAuthRequest('http://h/t', { a: '1', b: undefined }, 'body');
    expect(request.body).toBe('a=1');
  });
});

describe('error classes used', () => {
  it('exist with their exit codes', () => {
    expect(new AuthError('x').exitCode).toBe(3);
    expect(new ServiceError('x').exitCode).toBe(1);
    expect(new NetworkError('x').exitCode).toBe(4);
  });
});
