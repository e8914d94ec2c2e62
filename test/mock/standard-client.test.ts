import * as oauth from 'oauth4webapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MockServer } from '../../src/mock/index.js';
import {
  approve,
  DEMO,
  REDIRECT,
  startMock,
  tokenWorks,
  withMock,
} from '../helpers/mock-client.js';

/** oauth4webapi (panva), a standard RFC 6749 client, driving the mock the RFC 6749 way. */
let mock: MockServer;
let as: oauth.AuthorizationServer;
const client: oauth.Client = { client_id: DEMO.id };
// The mock is plain http on 127.0.0.1; oauth4webapi insists on https unless told otherwise.
const insecure = { [oauth.allowInsecureRequests]: true };

beforeAll(async () => {
  mock = await startMock({ autoApprove: 'alice' });
  as = {
    issuer: mock.url,
    authorization_endpoint: `${mock.url}/webservice/authorize/`,
    token_endpoint: `${mock.url}/webservice/authorize`,
    revocation_endpoint: `${mock.url}/webservice/authorize/revoke`,
  };
});
afterAll(() => mock.close());

async function authorize(state: string, challenge: string): Promise<URL> {
  const url = new URL(as.authorization_endpoint!);
  url.search = new URLSearchParams({
    response_type: 'code',
    client_id: DEMO.id,
    redirect_uri: REDIRECT,
    scope: 'crm',
    state,
    code_challenge: challenge,
    code_challenge_method: 'S256',
  }).toString();
  const res = await fetch(url, { redirect: 'manual' });
  expect(res.status).toBe(302);
  return new URL(res.headers.get('location')!);
}

describe('oauth4webapi against the mock', () => {
  it.each([
    ['client_secret_post', oauth.ClientSecretPost(DEMO.secret)],
    ['client_secret_basic', oauth.ClientSecretBasic(DEMO.secret)],
  ])('code (PKCE, %s) → refresh → revoke', async (_name, clientAuth) => {
    const verifier = oauth.generateRandomCodeVerifier();
    const state = oauth.generateRandomState();
    const location = await authorize(state, await oauth.calculatePKCECodeChallenge(verifier));
    const callback = oauth.validateAuthResponse(as, client, location, state);

    const tokens = await oauth.processAuthorizationCodeResponse(
      as,
      client,
      await oauth.authorizationCodeGrantRequest(
        as,
        client,
        clientAuth,
        callback,
        REDIRECT,
        verifier,
        insecure,
      ),
    );
    expect(tokens.token_type).toBe('bearer');
    expect(tokens.expires_in).toBe(3600);
    expect(await tokenWorks(mock.url, tokens.access_token)).toBe(true);

    const refreshed = await oauth.processRefreshTokenResponse(
      as,
      client,
      await oauth.refreshTokenGrantRequest(as, client, clientAuth, tokens.refresh_token!, insecure),
    );
    expect(refreshed.token_type).toBe('bearer');
    expect(await tokenWorks(mock.url, tokens.access_token)).toBe(false);
    expect(await tokenWorks(mock.url, refreshed.access_token)).toBe(true);

    await oauth.processRevocationResponse(
      await oauth.revocationRequest(as, client, clientAuth, refreshed.refresh_token!, {
        ...insecure,
        additionalParameters: { token_type_hint: 'refresh_token' },
      }),
    );
    expect(await tokenWorks(mock.url, refreshed.access_token)).toBe(false);
  });

  it('reads a Deny as an access_denied authorization error', async () => {
    await withMock({}, async (consent) => {
      const location = await approve(consent.url, { state: 'st' }, 'deny');
      expect(() => oauth.validateAuthResponse(as, client, location, 'st')).toThrow(
        expect.objectContaining({ error: 'access_denied' }) as Error,
      );
    });
  });

  it('reads a wrong secret as invalid_client with the Basic challenge', async () => {
    const verifier = oauth.generateRandomCodeVerifier();
    const location = await authorize('s', await oauth.calculatePKCECodeChallenge(verifier));
    const callback = oauth.validateAuthResponse(as, client, location, 's');
    const response = await oauth.authorizationCodeGrantRequest(
      as,
      client,
      oauth.ClientSecretPost('wrong'),
      callback,
      REDIRECT,
      verifier,
      insecure,
    );
    const error = await oauth
      .processAuthorizationCodeResponse(as, client, response)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(oauth.WWWAuthenticateChallengeError);
    expect(error).toMatchObject({ status: 401 });
    expect((error as oauth.WWWAuthenticateChallengeError).cause[0]).toMatchObject({
      scheme: 'basic',
      parameters: { realm: 'dasvc-mock' },
    });
  });
});
