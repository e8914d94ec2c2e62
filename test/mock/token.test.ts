import { createHash, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  advance,
  authorizeQuery,
  basic,
  DEMO,
  DEMO_CREDENTIALS,
  exchange,
  form,
  get,
  getCode,
  login,
  oauthErrorOf,
  OTHER,
  postForm,
  REDIRECT,
  refresh,
  startMock,
  startMockForFile,
  type TokenBody,
  tokenWorks,
  withMock,
} from '../helpers/mock-client.js';

const mock = startMockForFile();

const tokenUrl = () => `${mock.url}/webservice/authorize`;

describe('token endpoint (SERVICE.md 4.2)', () => {
  it('exchanges a code: access_token, expires_in as a string of seconds, refresh_token, no-store', async () => {
    const code = await getCode(mock.url);
    const res = await exchange(mock.url, code);
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    const body = (await res.json()) as TokenBody;
    expect(Object.keys(body).sort()).toEqual(['access_token', 'expires_in', 'refresh_token']);
    expect(body.expires_in).toBe('3600');
    expect(body.access_token).not.toBe(body.refresh_token);
    expect(await tokenWorks(mock.url, body.access_token)).toBe(true);
  });

  it('accepts the parameters in a form body (standard OAuth clients), adding token_type', async () => {
    const code = await getCode(mock.url);
    const res = await postForm(tokenUrl(), {
      grant_type: 'authorization_code',
      code,
      redirect_uri: REDIRECT,
      ...DEMO_CREDENTIALS,
    });
    expect(res.status).toBe(200);
    // RFC 6749 §5.1 for requests made the RFC 6749 way; SERVICE.md's three members otherwise.
    const body = (await res.json()) as Record<string, unknown>;
    expect(Object.keys(body)).toEqual([
      'access_token',
      'token_type',
      'expires_in',
      'refresh_token',
    ]);
    expect(body).toMatchObject({ token_type: 'Bearer', expires_in: '3600' });
  });

  it('accepts HTTP Basic client authentication (RFC 6749 §2.3.1), with or without client_id', async () => {
    for (const withId of [false, true]) {
      const code = await getCode(mock.url);
      const res = await postForm(
        tokenUrl(),
        {
          grant_type: 'authorization_code',
          code,
          redirect_uri: REDIRECT,
          client_id: withId ? DEMO.id : undefined,
        },
        { authorization: basic(DEMO.id, DEMO.secret) },
      );
      expect(res.status).toBe(200);
      expect(((await res.json()) as { token_type?: string }).token_type).toBe('Bearer');
    }
    // Basic with the other parameters in the query string is the RFC 6749 way too.
    const code = await getCode(mock.url);
    const q = form({ grant_type: 'authorization_code', code });
    const res = await fetch(`${tokenUrl()}?${q}`, {
      method: 'POST',
      headers: { authorization: basic(DEMO.id, DEMO.secret) },
    });
    expect(((await res.json()) as { token_type?: string }).token_type).toBe('Bearer');
  });

  it('Basic and client_secret at once → invalid_request 400 (RFC 6749 §5.2: two mechanisms)', async () => {
    const code = await getCode(mock.url);
    const both = await postForm(
      tokenUrl(),
      { grant_type: 'authorization_code', code, ...DEMO_CREDENTIALS },
      { authorization: basic(DEMO.id, DEMO.secret) },
    );
    expect(both.status).toBe(400);
    expect((await oauthErrorOf(both)).error).toBe('invalid_request');
  });

  it('a mismatched Basic → invalid_client 401 with WWW-Authenticate', async () => {
    const code = await getCode(mock.url);
    const wrong = await postForm(
      tokenUrl(),
      { grant_type: 'authorization_code', code },
      { authorization: basic(DEMO.id, 'nope') },
    );
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get('www-authenticate')).toBe('Basic realm="dasvc-mock"');
    expect((await oauthErrorOf(wrong)).error).toBe('invalid_client');
  });

  it.each([
    ['wrong secret', { client_secret: 'wrong' }, 401, 'invalid_client'],
    ['missing secret', { client_secret: undefined }, 400, 'invalid_request'],
    ['empty secret', { client_secret: '' }, 400, 'invalid_request'],
    ['unknown client', { client_id: 'nobody' }, 401, 'invalid_client'],
    ['missing client_id', { client_id: undefined }, 400, 'invalid_request'],
    ['missing grant_type', { grant_type: undefined }, 400, 'invalid_request'],
    ['unknown grant_type', { grant_type: 'password' }, 400, 'unsupported_grant_type'],
    ['missing code', { code: undefined }, 400, 'invalid_request'],
    ['unknown code', { code: 'not-a-code' }, 400, 'invalid_grant'],
  ])('%s → %i %s', async (_name, override, status, error) => {
    const code = await getCode(mock.url);
    const res = await exchange(mock.url, code, override);
    const body = await oauthErrorOf(res);
    expect(res.status).toBe(status);
    expect(body.error).toBe(error);
    expect(typeof body.description).toBe('string');
    // invalid_request names the parameter: the row's own (`missing client_id` → client_id).
    if (error === 'invalid_request') {
      const param = _name.endsWith(' secret') ? 'client_secret' : _name.replace(/^missing /, '');
      expect(body.description).toBe(`missing parameter: ${param}`);
    }
    // RFC 9110 §15.5.2: every 401 carries a challenge, also without HTTP Basic in the request.
    expect(res.headers.get('www-authenticate')).toBe(
      status === 401 ? 'Basic realm="dasvc-mock"' : null,
    );
    expect(res.headers.get('cache-control')).toBe('no-store');
  });

  it('a repeated parameter → invalid_request naming it (query + body)', async () => {
    const code = await getCode(mock.url);
    const res = await fetch(
      `${tokenUrl()}?${form({ ...DEMO_CREDENTIALS, grant_type: 'authorization_code', code })}`,
      {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: form({ code }),
      },
    );
    const body = await oauthErrorOf(res);
    expect(body).toMatchObject({ status: 400, error: 'invalid_request' });
    expect(body.description).toContain('code');
  });

  it('answers GET as well as POST', async () => {
    const code = await getCode(mock.url);
    const q = form({
      ...DEMO_CREDENTIALS,
      grant_type: 'authorization_code',
      code,
    });
    expect((await fetch(`${tokenUrl()}?${q}`)).status).toBe(200);
  });

  it('a code is single use; the replay is refused and revokes the tokens issued for it', async () => {
    const code = await getCode(mock.url);
    const first = (await (await exchange(mock.url, code)).json()) as TokenBody;
    const rotated = (await (await refresh(mock.url, first.refresh_token)).json()) as TokenBody;
    expect(await tokenWorks(mock.url, rotated.access_token)).toBe(true);
    const replay = await exchange(mock.url, code);
    expect(await oauthErrorOf(replay)).toMatchObject({ status: 400, error: 'invalid_grant' });
    expect(await tokenWorks(mock.url, rotated.access_token)).toBe(false);
    expect((await refresh(mock.url, rotated.refresh_token)).status).toBe(400);
  });

  it('a code is bound to its client', async () => {
    const code = await getCode(mock.url);
    const res = await exchange(mock.url, code, {
      client_id: OTHER.id,
      client_secret: OTHER.secret,
    });
    expect(await oauthErrorOf(res)).toMatchObject({ status: 400, error: 'invalid_grant' });
    expect((await exchange(mock.url, code)).status).toBe(200);
  });

  // Regression: the client check came first, so a used code in another client's hands revoked
  // nothing (SPEC §5: a second use is refused and revokes the tokens issued for it).
  it('a used code presented by another client is a second use: refused, its tokens revoked', async () => {
    const code = await getCode(mock.url);
    const first = (await (await exchange(mock.url, code)).json()) as TokenBody;
    const leaked = await exchange(mock.url, code, {
      client_id: OTHER.id,
      client_secret: OTHER.secret,
    });
    expect(await oauthErrorOf(leaked)).toMatchObject({ status: 400, error: 'invalid_grant' });
    expect(await tokenWorks(mock.url, first.access_token)).toBe(false);
    expect((await refresh(mock.url, first.refresh_token)).status).toBe(400);
  });

  it('a redirect_uri in the token request must match; without one it is accepted', async () => {
    const code = await getCode(mock.url);
    const bad = await exchange(mock.url, code, { redirect_uri: 'http://127.0.0.1:9/other' });
    expect(await oauthErrorOf(bad)).toMatchObject({ error: 'invalid_grant' });
    expect((await exchange(mock.url, code, { redirect_uri: REDIRECT })).status).toBe(200);
  });

  it('a code expires after the code TTL (virtual clock)', async () => {
    await withMock({}, async (clockMock) => {
      const code = await getCode(clockMock.url);
      await advance(clockMock.url, '1h');
      const res = await exchange(clockMock.url, code);
      expect(await oauthErrorOf(res)).toMatchObject({ status: 400, error: 'invalid_grant' });
    });
  });

  it('a code is still good just before the TTL', async () => {
    await withMock({ codeTtl: '10m' }, async (clockMock) => {
      const code = await getCode(clockMock.url);
      await advance(clockMock.url, '9m');
      expect((await exchange(clockMock.url, code)).status).toBe(200);
      const late = await getCode(clockMock.url);
      await advance(clockMock.url, 601);
      expect((await exchange(clockMock.url, late)).status).toBe(400);
    });
  });
});

describe('PKCE (RFC 7636)', () => {
  const verifier = randomBytes(32).toString('base64url');
  const s256 = createHash('sha256').update(verifier).digest('base64url');

  it('S256: the matching verifier is required', async () => {
    const code = await getCode(mock.url, { challenge: s256, challengeMethod: 'S256' });
    expect(await oauthErrorOf(await exchange(mock.url, code))).toMatchObject({
      error: 'invalid_grant',
    });
    expect(
      await oauthErrorOf(await exchange(mock.url, code, { code_verifier: `${verifier}x` })),
    ).toMatchObject({ error: 'invalid_grant' });
    expect((await exchange(mock.url, code, { code_verifier: verifier })).status).toBe(200);
  });

  it('plain (also the default method) compares the verifier itself', async () => {
    const code = await getCode(mock.url, { challenge: verifier });
    expect((await exchange(mock.url, code, { code_verifier: s256 })).status).toBe(400);
    expect((await exchange(mock.url, code, { code_verifier: verifier })).status).toBe(200);
  });

  it('without a challenge no verifier is asked', async () => {
    const code = await getCode(mock.url);
    expect((await exchange(mock.url, code, { code_verifier: verifier })).status).toBe(200);
  });
});

describe('refresh (SERVICE.md 4.3)', () => {
  it('returns a new pair; the old pair stops working at once', async () => {
    const first = await login(mock.url);
    const res = await refresh(mock.url, first.refresh_token);
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const second = (await res.json()) as TokenBody;
    expect(second.expires_in).toBe('3600');
    expect(second.access_token).not.toBe(first.access_token);
    expect(second.refresh_token).not.toBe(first.refresh_token);
    expect(await tokenWorks(mock.url, first.access_token)).toBe(false);
    expect(await tokenWorks(mock.url, second.access_token)).toBe(true);
  });

  it('reusing an old refresh token is refused; the pair that replaced it keeps working', async () => {
    const first = await login(mock.url);
    const second = (await (await refresh(mock.url, first.refresh_token)).json()) as TokenBody;
    const reuse = await refresh(mock.url, first.refresh_token);
    expect(await oauthErrorOf(reuse)).toMatchObject({ status: 400, error: 'invalid_grant' });
    expect(await tokenWorks(mock.url, second.access_token)).toBe(true);
    expect((await refresh(mock.url, second.refresh_token)).status).toBe(200);
  });

  it('the token endpoint accepts grant_type=refresh_token too', async () => {
    const first = await login(mock.url);
    const res = await postForm(
      `${mock.url}/webservice/authorize`,
      { grant_type: 'refresh_token', refresh_token: first.refresh_token },
      { authorization: basic(DEMO.id, DEMO.secret) },
    );
    expect(res.status).toBe(200);
    expect(((await res.json()) as { token_type?: string }).token_type).toBe('Bearer');
  });

  it('a refresh made the SERVICE.md way (query string) gets exactly three members; a form body adds token_type', async () => {
    const first = await login(mock.url);
    const viaQuery = (await (await refresh(mock.url, first.refresh_token)).json()) as TokenBody;
    expect(Object.keys(viaQuery).sort()).toEqual(['access_token', 'expires_in', 'refresh_token']);
    const viaForm = await postForm(`${mock.url}/webservice/authorize/refresh_token`, {
      ...DEMO_CREDENTIALS,
      grant_type: 'refresh_token',
      refresh_token: viaQuery.refresh_token,
    });
    expect(await viaForm.json()).toMatchObject({ token_type: 'Bearer', expires_in: '3600' });
  });

  it('the refresh endpoint refuses other grant types and a missing refresh_token', async () => {
    const first = await login(mock.url);
    const q = form({
      ...DEMO_CREDENTIALS,
      grant_type: 'authorization_code',
      refresh_token: first.refresh_token,
    });
    const res = await fetch(`${mock.url}/webservice/authorize/refresh_token?${q}`, {
      method: 'POST',
    });
    expect(await oauthErrorOf(res)).toMatchObject({ status: 400, error: 'unsupported_grant_type' });
    const q2 = form({
      ...DEMO_CREDENTIALS,
      grant_type: 'refresh_token',
    });
    const missing = await oauthErrorOf(
      await fetch(`${mock.url}/webservice/authorize/refresh_token?${q2}`, { method: 'POST' }),
    );
    expect(missing).toMatchObject({ status: 400, error: 'invalid_request' });
    expect(missing.description).toContain('refresh_token');
  });

  it('a refresh token of another client is refused and stays usable by its owner', async () => {
    const first = await login(mock.url);
    const res = await refresh(mock.url, first.refresh_token, OTHER);
    expect(await oauthErrorOf(res)).toMatchObject({ error: 'invalid_grant' });
    expect((await refresh(mock.url, first.refresh_token)).status).toBe(200);
  });

  it('refresh needs client authentication', async () => {
    const first = await login(mock.url);
    const res = await refresh(mock.url, first.refresh_token, { id: DEMO.id, secret: 'wrong' });
    expect(await oauthErrorOf(res)).toMatchObject({ status: 401, error: 'invalid_client' });
  });

  it('only before the access token expires (virtual clock)', async () => {
    await withMock({}, async (clockMock) => {
      const a = await login(clockMock.url);
      const b = await login(clockMock.url);
      await advance(clockMock.url, 3599);
      expect(await tokenWorks(clockMock.url, a.access_token)).toBe(true);
      expect((await refresh(clockMock.url, a.refresh_token)).status).toBe(200);
      await advance(clockMock.url, 1);
      expect(await tokenWorks(clockMock.url, b.access_token)).toBe(false);
      expect(await oauthErrorOf(await refresh(clockMock.url, b.refresh_token))).toMatchObject({
        error: 'invalid_grant',
      });
    });
  });

  it('expires_in is the lifetime in whole seconds, rounded down', async () => {
    await withMock({ accessTtl: 90.9 }, async (m) => {
      expect((await login(m.url)).expires_in).toBe('90');
    });
  });

  it.each([
    ['codeTtl', 0],
    ['accessTtl', '0s'],
    ['refreshTtl', 0],
    ['accessTtl', '500ms'],
    ['codeTtl', 0.999],
    ['accessTtl', '40000d'],
    ['refreshTtl', 1e12],
  ])('%s %j is refused: under 1 s (or over 100 years)', async (name, value) => {
    await expect(startMock({ [name]: value })).rejects.toThrow(/ttl/);
  });

  it('--access-ttl and --refresh-ttl set the lifetimes', async () => {
    await withMock({ accessTtl: '15m', refreshTtl: '5m' }, async (ttlMock) => {
      const a = await login(ttlMock.url);
      expect(a.expires_in).toBe('900');
      await advance(ttlMock.url, '5m');
      expect(await tokenWorks(ttlMock.url, a.access_token)).toBe(true);
      expect((await refresh(ttlMock.url, a.refresh_token)).status).toBe(400);
      await advance(ttlMock.url, '10m');
      expect(await tokenWorks(ttlMock.url, a.access_token)).toBe(false);
    });
  });
});

describe('parameters an endpoint does not read (RFC 6749 §3.1: ignored)', () => {
  // Each endpoint gets, beside its own, a parameter sent twice and one that is not valid UTF-8:
  // names it does not read, some of them another endpoint's.
  const junk = (name: string) => `&${name}=1&${name}=2&x-trace=%FF&%FE=3`;

  it('are ignored by the authorization request and the consent form, repeated or broken', async () => {
    const query = `${form(authorizeQuery())}${junk('code')}`;
    const page = await get(`${mock.url}/webservice/authorize/?${query}`);
    expect(page.status).toBe(200);
    const approved = await fetch(`${mock.url}/webservice/authorize/`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: `${query}&decision=approve&user=alice`,
    });
    expect(approved.status).toBe(302);
    expect(new URL(approved.headers.get('location')!).searchParams.get('code')).toBeTruthy();
  });

  it('are ignored by the token, refresh and revoke requests, repeated or broken', async () => {
    const code = await getCode(mock.url);
    const q = form({ ...DEMO_CREDENTIALS, grant_type: 'authorization_code', code });
    const exchanged = await fetch(`${tokenUrl()}?${q}${junk('state')}`, { method: 'POST' });
    expect(exchanged.status).toBe(200);
    const pair = (await exchanged.json()) as TokenBody;
    const r = form({
      ...DEMO_CREDENTIALS,
      grant_type: 'refresh_token',
      refresh_token: pair.refresh_token,
    });
    const refreshed = await fetch(`${tokenUrl()}/refresh_token?${r}${junk('code')}`, {
      method: 'POST',
    });
    expect(refreshed.status).toBe(200);
    const { access_token } = (await refreshed.json()) as TokenBody;
    const v = form({ ...DEMO_CREDENTIALS, token_type_hint: 'access_token', token: access_token });
    const revoked = await fetch(`${tokenUrl()}/revoke?${v}${junk('grant_type')}`, {
      method: 'POST',
    });
    expect(revoked.status).toBe(200);
    expect(await tokenWorks(mock.url, access_token)).toBe(false);
  });

  it('while a parameter the endpoint reads is still refused when broken', async () => {
    const code = await getCode(mock.url);
    const q = form({ ...DEMO_CREDENTIALS, grant_type: 'authorization_code', code });
    const body = await oauthErrorOf(
      await fetch(`${tokenUrl()}?${q}&code_verifier=%FF`, { method: 'POST' }),
    );
    expect(body).toMatchObject({ status: 400, error: 'invalid_request' });
    expect(body.description).toContain('code_verifier is not valid UTF-8');
  });
});
