import { describe, expect, it } from 'vitest';
import {
  basic,
  DEMO,
  DEMO_CREDENTIALS,
  form,
  login,
  mint,
  oauthErrorOf,
  OTHER,
  postForm,
  refresh,
  revoke,
  startMockForFile,
  tokenWorks,
} from '../helpers/mock-client.js';

const mock = startMockForFile();

describe('revoke endpoint (SERVICE.md 4.4, RFC 7009)', () => {
  it('revokes an access token: {"result":"Token revoked"}, the token stops working', async () => {
    const t = await login(mock.url);
    const res = await revoke(mock.url, t.access_token, 'access_token');
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ result: 'Token revoked' });
    expect(await tokenWorks(mock.url, t.access_token)).toBe(false);
  });

  it('revoking a refresh token also ends its access token', async () => {
    const t = await login(mock.url);
    expect((await revoke(mock.url, t.refresh_token, 'refresh_token')).status).toBe(200);
    expect(await tokenWorks(mock.url, t.access_token)).toBe(false);
    expect((await refresh(mock.url, t.refresh_token)).status).toBe(400);
  });

  it('a wrong hint still finds the token (RFC 7009 §2.1)', async () => {
    const t = await login(mock.url);
    expect((await revoke(mock.url, t.access_token, 'refresh_token')).status).toBe(200);
    expect(await tokenWorks(mock.url, t.access_token)).toBe(false);
  });

  it('an unknown or already revoked token answers the same 200', async () => {
    const t = await mint(mock.url);
    expect((await revoke(mock.url, t.access_token, 'access_token')).status).toBe(200);
    const again = await revoke(mock.url, t.access_token, 'access_token');
    expect(again.status).toBe(200);
    expect(await again.json()).toEqual({ result: 'Token revoked' });
    expect(await (await revoke(mock.url, 'never-issued', 'refresh_token')).json()).toEqual({
      result: 'Token revoked',
    });
  });

  it("another client's token is refused (invalid_grant) and stays valid", async () => {
    const t = await mint(mock.url);
    const res = await revoke(mock.url, t.access_token, 'access_token', OTHER);
    expect(await oauthErrorOf(res)).toMatchObject({ status: 400, error: 'invalid_grant' });
    expect(await tokenWorks(mock.url, t.access_token)).toBe(true);
    const r = await revoke(mock.url, t.refresh_token, 'refresh_token', OTHER);
    expect(r.status).toBe(400);
    expect((await refresh(mock.url, t.refresh_token)).status).toBe(200);
  });

  it('token_type_hint other than access_token/refresh_token → invalid_request naming it', async () => {
    const t = await mint(mock.url);
    const res = await revoke(mock.url, t.access_token, 'id_token');
    expect(await oauthErrorOf(res)).toEqual({
      status: 400,
      error: 'invalid_request',
      description: 'token_type_hint must be access_token or refresh_token',
    });
    expect(await tokenWorks(mock.url, t.access_token)).toBe(true);
  });

  it.each(['token_type_hint', 'token'])('missing %s → invalid_request naming it', async (name) => {
    const t = await mint(mock.url);
    const params = {
      ...DEMO_CREDENTIALS,
      token_type_hint: 'access_token',
      token: t.access_token,
      [name]: undefined,
    };
    const body = await oauthErrorOf(
      await fetch(`${mock.url}/webservice/authorize/revoke?${form(params)}`, { method: 'POST' }),
    );
    expect(body.error).toBe('invalid_request');
    expect(body.description).toContain(name);
  });

  it('needs client authentication; accepts Basic, form bodies and GET', async () => {
    const t = await mint(mock.url);
    const bad = await revoke(mock.url, t.access_token, 'access_token', {
      id: DEMO.id,
      secret: 'x',
    });
    expect(await oauthErrorOf(bad)).toMatchObject({ status: 401, error: 'invalid_client' });
    expect(await tokenWorks(mock.url, t.access_token)).toBe(true);
    const viaBasic = await postForm(
      `${mock.url}/webservice/authorize/revoke`,
      { token: t.access_token, token_type_hint: 'access_token' },
      { authorization: basic(DEMO.id, DEMO.secret) },
    );
    expect(viaBasic.status).toBe(200);
    const u = await mint(mock.url);
    const viaGet = await fetch(
      `${mock.url}/webservice/authorize/revoke?${form({ ...DEMO_CREDENTIALS, token_type_hint: 'refresh_token', token: u.refresh_token })}`,
    );
    expect(viaGet.status).toBe(200);
    expect(await tokenWorks(mock.url, u.access_token)).toBe(false);
  });

  it('revoking an access token leaves its refresh token usable', async () => {
    const t = await mint(mock.url);
    await revoke(mock.url, t.access_token, 'access_token');
    expect((await refresh(mock.url, t.refresh_token)).status).toBe(200);
  });
});
