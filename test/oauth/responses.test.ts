import { describe, expect, it } from 'vitest';
import { AuthError, NetworkError, ServiceError } from '../../src/errors.js';
import type { HttpResponse } from '../../src/http/types.js';
import { parseCallback, parsePastedRedirect } from '../../src/oauth/callback.js';
import {
  processRevocationResponse,
  processTokenResponse,
  readExpiresIn,
} from '../../src/oauth/token-response.js';

const json = (status: number, body: unknown): HttpResponse => ({
  status,
  headers: { 'content-type': 'application/json' },
  text: typeof body === 'string' ? body : JSON.stringify(body),
});

describe('processTokenResponse (SERVICE.md §2.3, RFC 6749 §5)', () => {
  it('accepts expires_in as a string (the service) or a number (RFC 6749)', () => {
    const a = processTokenResponse(
      json(200, { access_token: 'A', expires_in: '3600', refresh_token: 'R' }),
      1000,
    );
    expect(a).toEqual({
      accessToken: 'A',
      refreshToken: 'R',
      expiresAt: 1000 + 3_600_000,
      obtainedAt: 1000,
    });
    const b = processTokenResponse(
      json(200, { access_token: 'A', expires_in: 60, token_type: 'Bearer', extra: 1 }),
      0,
    );
    expect(b.expiresAt).toBe(60_000);
  });
  it('treats a missing or unreadable expires_in as unknown', () => {
    expect(processTokenResponse(json(200, { access_token: 'A' }), 5).expiresAt).toBeNull();
    expect(readExpiresIn('soon')).toBeNull();
    expect(readExpiresIn(-1)).toBeNull();
  });
  it('keeps the previous refresh token when a refresh answer has none', () => {
    expect(
      processTokenResponse(json(200, { access_token: 'A2' }), 0, 'refresh', 'R1').refreshToken,
    ).toBe('R1');
  });
  it('classifies errors by exit code', () => {
    expect(() => processTokenResponse(json(400, { error: 'invalid_grant' }), 0)).toThrow(AuthError);
    expect(() => processTokenResponse(json(401, { error: 'invalid_client' }), 0)).toThrow(
      AuthError,
    );
    expect(() => processTokenResponse(json(400, { error: 'unauthorized_client' }), 0)).toThrow(
      AuthError,
    );
    expect(() => processTokenResponse(json(400, { error: 'invalid_request' }), 0)).toThrow(
      ServiceError,
    );
    expect(() => processTokenResponse(json(403, 'forbidden'), 0)).toThrow(AuthError);
    expect(() => processTokenResponse(json(502, 'bad gateway'), 0)).toThrow(ServiceError);
    expect(() => processTokenResponse(json(200, '<html>'), 0)).toThrow(NetworkError);
    expect(() => processTokenResponse(json(200, { token: 'x' }), 0)).toThrow(NetworkError);
    expect(() => processTokenResponse(json(404, '<html>not found</html>'), 0)).toThrow(
      NetworkError,
    );
  });
  it('carries the OAuth error code and description', () => {
    expect(() =>
      processTokenResponse(
        json(400, { error: 'invalid_grant', error_description: 'code expired' }),
        0,
      ),
    ).toThrow(
      expect.objectContaining({
        name: 'AuthError',
        code: 'invalid_grant',
        status: 400,
        message: expect.stringContaining('code expired'),
      }),
    );
  });
});

describe('processRevocationResponse (SERVICE.md §2.4, RFC 7009)', () => {
  it('confirms on 200 without error', () => {
    expect(processRevocationResponse(json(200, { result: 'Token revoked' }))).toEqual({
      result: 'Token revoked',
    });
    expect(processRevocationResponse(json(200, ''))).toBeNull();
  });
  it('refuses anything else', () => {
    expect(() => processRevocationResponse(json(200, { error: 'invalid_request' }))).toThrow(
      ServiceError,
    );
    expect(() => processRevocationResponse(json(401, { error: 'invalid_client' }))).toThrow(
      AuthError,
    );
    expect(() => processRevocationResponse(json(500, 'oops'))).toThrow(ServiceError);
    expect(() => processRevocationResponse(json(200, 'ok!'))).toThrow(NetworkError);
  });
  it('regression: refuses a JSON body that is not an object (it was accepted)', () => {
    for (const body of ['"Token revoked"', '["Token revoked"]', 'true', '1', 'null']) {
      expect(() => processRevocationResponse({ status: 200, headers: {}, text: body })).toThrow(
        NetworkError,
      );
    }
  });
});

describe('parseCallback (SERVICE.md §4.1, RFC 6749 §4.1.2)', () => {
  const q = (s: string) => new URLSearchParams(s);
  it('returns the code when the state matches', () => {
    expect(parseCallback(q('state=S&code=C'), 'S')).toEqual({ kind: 'code', code: 'C' });
  });
  it('refuses a forged or missing state before looking at anything else', () => {
    expect(() => parseCallback(q('state=X&code=C'), 'S')).toThrow(AuthError);
    expect(() => parseCallback(q('code=C'), 'S')).toThrow(/state/);
    expect(() => parseCallback(q('state=X&error=access_denied'), 'S')).toThrow(/state/);
  });
  it('reports an error redirect with its reason', () => {
    expect(() => parseCallback(q('state=S&error=access_denied&error_description=no'), 'S')).toThrow(
      /access_denied \(no\)/,
    );
  });
  it('ignores requests with neither code nor error', () => {
    expect(parseCallback(q('foo=1'), 'S').kind).toBe('ignored');
  });
  it('reads pasted URLs and bare queries', () => {
    expect(
      parsePastedRedirect('  http://127.0.0.1:1/callback?state=S&code=C \n')?.get('code'),
    ).toBe('C');
    expect(parsePastedRedirect('?state=S&code=C')?.get('state')).toBe('S');
    expect(parsePastedRedirect('hello')).toBeUndefined();
  });
});
