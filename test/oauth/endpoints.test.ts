import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/errors.js';
import { checkEndpoint } from '../../src/oauth/endpoints.js';

// Regression: a bad DASVC_API_URL was reported as a bad --api-url only.
describe('checkEndpoint (SPEC §2 endpoint overrides)', () => {
  it('accepts absolute http(s) URLs, and an API template with {scope}', () => {
    expect(checkEndpoint('token', 'https://idp.example/oauth2/token')).toBe(
      'https://idp.example/oauth2/token',
    );
    expect(checkEndpoint('api', 'http://gw.example/api/{scope}/rpc')).toBe(
      'http://gw.example/api/{scope}/rpc',
    );
  });

  it.each([
    ['token', 'not a url', /--token-url \/ DASVC_TOKEN_URL is not a URL/],
    [
      'revoke',
      'ftp://idp.example/revoke',
      /--revoke-url \/ DASVC_REVOKE_URL must be http or https/,
    ],
    ['api', 'http://gw.example/api/rpc', /--api-url \/ DASVC_API_URL must contain \{scope\}/],
    [
      'token',
      ' https:me:PW-123@idp.example/token',
      /--token-url \/ DASVC_TOKEN_URL must not carry a user name or password: .*me:\[redacted\]@/,
    ],
  ] as const)('refuses a bad %s URL naming the flag and the variable', (name, url, message) => {
    expect(() => checkEndpoint(name, url)).toThrow(UsageError);
    expect(() => checkEndpoint(name, url)).toThrow(message);
  });
});
