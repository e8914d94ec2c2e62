import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DasvcError } from '../../src/errors.js';
import { processTokenResponse, readExpiresIn } from '../../src/oauth/token-response.js';
import { RUNS, text } from '../helpers/parser-properties.js';
import { MAX_DATE_MS, MAX_DURATION_SECONDS } from '../../src/util/duration.js';

describe('token responses (SERVICE.md §2.3, RFC 6749 §5)', () => {
  const expiresIn = fc.oneof(
    fc.double(),
    fc.integer(),
    fc.string(),
    fc.double().map(String),
    fc.constantFrom('1e300', 1e13, '3600', ' 60 ', null, true, [], {}),
  );
  const body = fc.oneof(
    fc.record(
      {
        access_token: fc.oneof(fc.string(), fc.anything()),
        refresh_token: fc.anything(),
        expires_in: expiresIn,
      },
      { requiredKeys: [] },
    ),
    fc.record(
      { error: fc.oneof(fc.string(), fc.anything()), error_description: fc.anything() },
      { requiredKeys: [] },
    ),
    fc.anything(),
  );
  const answer = fc.record({
    status: fc.oneof(
      fc.constantFrom(200, 201, 400, 401, 403, 500, 502),
      fc.integer({ min: 100, max: 599 }),
    ),
    text: fc.oneof(
      body.map((b) => JSON.stringify(b) ?? ''),
      text,
    ),
  });

  it('any answer: tokens with a representable expiry, or a typed error with an exit code', () => {
    const now = Date.UTC(2026, 10, 23);
    fc.assert(
      fc.property(answer, (response) => {
        try {
          const tokens = processTokenResponse(
            { ...response, headers: {} },
            now,
            'token request',
            null,
            () => {},
          );
          expect(typeof tokens.accessToken).toBe('string');
          // Tokens are printable ASCII (RFC 6749 VSCHAR): `token print` writes them as they are.
          expect(tokens.accessToken).toMatch(/^[\x20-\x7e]+$/);
          if (tokens.refreshToken !== null) expect(tokens.refreshToken).toMatch(/^[\x20-\x7e]+$/);
          if (tokens.expiresAt !== null) {
            expect(tokens.expiresAt).toBeGreaterThanOrEqual(now);
            expect(tokens.expiresAt).toBeLessThanOrEqual(MAX_DATE_MS);
            expect(() => new Date(tokens.expiresAt!).toISOString()).not.toThrow();
          }
        } catch (error) {
          if (!(error instanceof DasvcError)) throw error;
          expect([1, 3, 4]).toContain(error.exitCode);
        }
      }),
      RUNS,
    );
  });

  it('refuses a token with control or non-ASCII characters, exit 4', () => {
    for (const [member, token] of [
      ['access_token', 'AT\u001b]52;c;SGVsbG8=\u0007'],
      ['access_token', 'AT\u009b31m'],
      ['refresh_token', 'RT\u202e'],
      ['refresh_token', 'RT\n'],
    ] as const) {
      const text = JSON.stringify({ access_token: 'AT', refresh_token: 'RT', [member]: token });
      expect(() => processTokenResponse({ status: 200, headers: {}, text }, 0)).toThrow(
        expect.objectContaining({
          exitCode: 4,
          message: `token request: the answer's ${member} holds characters a token cannot have (RFC 6749: visible ASCII only)`,
        }),
      );
    }
    // An empty refresh_token is none: the one before is kept.
    const empty = JSON.stringify({ access_token: 'AT', refresh_token: '' });
    expect(
      processTokenResponse({ status: 200, headers: {}, text: empty }, 0, 'x', 'RT0'),
    ).toMatchObject({ accessToken: 'AT', refreshToken: 'RT0' });
    const fine = JSON.stringify({ access_token: 'a.b-c_d~e+f/g==', refresh_token: 'r t!' });
    expect(processTokenResponse({ status: 200, headers: {}, text: fine }, 0)).toMatchObject({
      accessToken: 'a.b-c_d~e+f/g==',
      refreshToken: 'r t!',
    });
  });

  it("classifies a service's error as its code reads in snake_case, its words on one line", () => {
    const text = JSON.stringify({
      error: 'Invalid-Grant',
      error_description: 'gone\ndasvc: run this',
    });
    expect(() => processTokenResponse({ status: 400, headers: {}, text }, 0)).toThrow(
      expect.objectContaining({
        kind: 'auth',
        exitCode: 3,
        code: 'invalid_grant',
        message: 'token request refused: Invalid-Grant (gone\\u000adasvc: run this) [HTTP 400]',
      }),
    );
  });

  it('expires_in: a number of seconds within 100 years, or unknown', () => {
    fc.assert(
      fc.property(expiresIn, (value) => {
        const seconds = readExpiresIn(value);
        if (seconds !== null) {
          expect(seconds).toBeGreaterThanOrEqual(0);
          expect(seconds).toBeLessThanOrEqual(MAX_DURATION_SECONDS);
        }
      }),
      RUNS,
    );
  });
});
