import { describe, expect, it } from 'vitest';
import { buildRedirect, redirectUriProblem } from '../../../src/mock/routes/redirect-uri.js';

describe('redirect URIs', () => {
  it.each([
    ['http://127.0.0.1:8080/cb', undefined],
    ['https://app.example/cb?x=1', undefined],
    ['/cb', 'redirect_uri is not an absolute URL'],
    ['ftp://x/cb', 'redirect_uri must use http or https'],
    ['http://x/cb#f', 'redirect_uri must not contain a fragment (OAuth 2.0 allows none)'],
    ['http://u:p@x/cb', 'redirect_uri must not contain credentials'],
    [
      'http://x/cb\r\nSet-Cookie: a=b',
      'redirect_uri must not contain control characters or whitespace',
    ],
    ['http://x/c b', 'redirect_uri must not contain control characters or whitespace'],
    ['http://x/cb\t', 'redirect_uri must not contain control characters or whitespace'],
    ['http://x/cb\u0085', 'redirect_uri must not contain control characters or whitespace'],
    ['http://x/cb\u3000', 'redirect_uri must not contain control characters or whitespace'],
    ['http://x/cb/\u20ac', undefined],
  ])('%j', (uri, problem) => expect(redirectUriProblem(uri)).toBe(problem));
  it('builds the Location from redirect_uri as received (SPEC §5: <redirect_uri>?state=…)', () => {
    expect(buildRedirect('http://127.0.0.1:5555', [['code', 'c']])).toBe(
      'http://127.0.0.1:5555?code=c',
    );
    expect(buildRedirect('HTTP://h:80/a/../cb', [['code', 'c']])).toBe(
      'HTTP://h:80/a/../cb?code=c',
    );
  });
  it('takes the serialized URL only for non-ASCII text: a Location is ASCII', () => {
    expect(buildRedirect('http://h/cb/\u20ac?q=\u00e9', [['state', '\u00fc']])).toBe(
      'http://h/cb/%E2%82%AC?q=%C3%A9&state=%C3%BC',
    );
    expect(buildRedirect('http://b\u00fccher.example/cb?', [['code', 'c']])).toBe(
      'http://xn--bcher-kva.example/cb?code=c',
    );
  });
  it('appends state then code, percent-encoded', () => {
    expect(
      buildRedirect('http://h/cb', [
        ['state', 'a b&c'],
        ['code', 'X'],
      ]),
    ).toBe('http://h/cb?state=a%20b%26c&code=X');
    expect(
      buildRedirect('http://h/cb?t=1', [
        ['state', 's'],
        ['x', undefined],
      ]),
    ).toBe('http://h/cb?t=1&state=s');
  });
});
