import fc from 'fast-check';
import { binaryString } from '../helpers/binary-string.js';
import { describe, expect, it } from 'vitest';
import { AuthError } from '../../src/errors.js';
import { parseCallback, parsePastedRedirect } from '../../src/oauth/callback.js';
import { RUNS, text } from '../helpers/parser-properties.js';

/**
 * URLs as a browser's address bar or a terminal hands them over: a scheme, a host, a path, a
 * query of pairs (the redirect's own names among them) and a fragment, each part encoded or raw.
 * Built from parts rather than with `fc.webUrl`, whose path arbitrary maps every code point
 * (a 1.1M-entry Map, ~0.5 s of CPU) each time the test file runs.
 */
const pastedUrl = fc
  .record({
    scheme: fc.constantFrom('http', 'https', 'HTTP', 'ftp', 'dasvc'),
    host: fc.oneof(
      fc.constantFrom('127.0.0.1', 'localhost', '[::1]', 'example.com', 'xn--bcher-kva.example'),
      fc.ipV4(),
    ),
    port: fc.option(fc.integer({ min: 0, max: 65535 }), { nil: undefined }),
    path: fc.array(text, { maxLength: 3 }),
    query: fc.array(fc.tuple(fc.oneof(fc.constantFrom('code', 'state', 'error'), text), text), {
      maxLength: 4,
    }),
    fragment: fc.option(text, { nil: undefined }),
    encoded: fc.boolean(),
  })
  .map(({ scheme, host, port, path, query, fragment, encoded }) => {
    const part = (s: string) => (encoded ? encodeURIComponent(s) : s);
    const search = query.map(([k, v]) => `${part(k)}=${part(v)}`).join('&');
    return (
      `${scheme}://${host}${port === undefined ? '' : `:${port}`}/${path.map(part).join('/')}` +
      `${search === '' ? '' : `?${search}`}${fragment === undefined ? '' : `#${part(fragment)}`}`
    );
  });
describe('pasted redirect URLs and callback queries (SPEC §3 login)', () => {
  it('any pasted text: a query or undefined, never a throw', () => {
    fc.assert(
      fc.property(fc.oneof(text, pastedUrl), (pasted) => {
        const query = parsePastedRedirect(pasted);
        expect(query === undefined || query instanceof URLSearchParams).toBe(true);
      }),
      RUNS,
    );
  });

  it('the code and state of a redirect come back byte for byte, pasted or caught', () => {
    fc.assert(
      fc.property(
        binaryString({ minLength: 1, maxLength: 40 }),
        binaryString({ minLength: 1, maxLength: 40 }),
        fc.integer({ min: 1, max: 65535 }),
        (code, state, port) => {
          const url = `http://127.0.0.1:${port}/callback?${new URLSearchParams({ state, code })}`;
          const query = parsePastedRedirect(`  ${url}\n`)!;
          expect(parseCallback(query, state)).toEqual({ kind: 'code', code });
        },
      ),
      RUNS,
    );
  });

  it('any callback query: a code only with the exact state; else ignored or AuthError', () => {
    const params = fc.dictionary(
      fc.constantFrom('code', 'state', 'error', 'error_description', 'x'),
      text,
      { maxKeys: 5 },
    );
    // Half the time the state expected is the one the query carries, so that codes are returned
    // too, not only refusals.
    const outcomes = { code: 0, other: 0 };
    fc.assert(
      fc.property(params, text, fc.boolean(), (dict, other, same) => {
        const query = new URLSearchParams(dict);
        const expected = same && dict.state !== undefined ? dict.state : other;
        try {
          const result = parseCallback(query, expected);
          outcomes[result.kind === 'code' ? 'code' : 'other'] += 1;
          if (result.kind === 'code') {
            expect(query.get('state')).toBe(expected);
            expect(query.get('error')).toBeNull();
          } else {
            expect(query.get('code') ?? query.get('error')).toBeNull();
          }
        } catch (error) {
          if (!(error instanceof AuthError)) throw error;
          outcomes.other += 1;
        }
      }),
      RUNS,
    );
    expect(outcomes.code).toBeGreaterThan(10);
    expect(outcomes.other).toBeGreaterThan(10);
  });

  it('refuses a redirect that carries state, code or error twice, whichever value comes first', () => {
    for (const query of [
      'state=S&state=forged&code=C',
      'state=forged&state=S&code=C',
      'state=S&code=C&code=other',
      'state=S&error=access_denied&error=server_error',
    ]) {
      expect(() => parseCallback(new URLSearchParams(query), 'S'), query).toThrow(
        expect.objectContaining({ code: 'repeated_parameter', exitCode: 3 }),
      );
    }
  });

  it('says an empty error for what it is', () => {
    expect(() => parseCallback(new URLSearchParams('state=S&error='), 'S')).toThrow(
      expect.objectContaining({
        code: 'authorization_failed',
        message: 'authorization failed: an empty error',
      }),
    );
  });

  it('reads a pasted redirect wrapped in quotes or angle brackets as the redirect', () => {
    const url = 'http://127.0.0.1:5000/callback?state=S&code=C';
    // A bare query is read so too, its wrapper's spaces aside.
    for (const pasted of [
      `"${url}"`,
      `'${url}'`,
      `<${url}>`,
      ` < ${url} > `,
      '< ?state=S&code=C >',
    ]) {
      expect(parseCallback(parsePastedRedirect(pasted)!, 'S'), pasted).toEqual({
        kind: 'code',
        code: 'C',
      });
    }
  });
});
