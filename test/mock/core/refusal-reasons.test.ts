// SPEC §8: every refusal carries a one-line reason. A token the API or the refresh endpoint
// refuses is answered alike whatever the cause (RFC 6750 §3.1), but the log and the journal say
// which it was: expired, replaced by a refresh, revoked and how, or unknown.
import { describe, expect, it } from 'vitest';
import { EndedTokens } from '../../../src/mock/core/ended-tokens.js';
import { ROTATED_PER_GRANT } from '../../../src/mock/core/rotated-tokens.js';
import { journaledApp } from '../../helpers/in-process.js';

const CREDENTIALS = 'client_id=demo-client&client_secret=demo-secret';

function mock() {
  const { app, clock, entries, post, mint } = journaledApp();
  /** The reason the last request was refused with. */
  const call = async (token: string) => {
    const res = await post(
      '/webservice/json/crm',
      '{"jsonrpc":"2.0","method":"contacts.list","id":1}',
      token,
    );
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({
      error: 'invalid_token',
      error_description: 'unknown, expired or revoked access token',
    });
    return entries.at(-1)!.reason;
  };
  const refresh = async (token: string) => {
    const res = await post(
      `/webservice/authorize/refresh_token?grant_type=refresh_token&${CREDENTIALS}&refresh_token=${token}`,
    );
    const body = (await res.json()) as { access_token?: string; refresh_token?: string };
    return { status: res.status, reason: entries.at(-1)!.reason, body };
  };
  const revoke = (token: string, hint: string) =>
    post(`/webservice/authorize/revoke?${CREDENTIALS}&token=${token}&token_type_hint=${hint}`);
  return { app, clock, entries, mint, call, refresh, revoke };
}

describe('why a token is refused (SPEC §8)', () => {
  it('expired, replaced by a refresh, revoked, revoked with its refresh token, unknown', async () => {
    const m = mock();
    const expired = await m.mint();
    m.clock.t += 3601_000;
    expect(await m.call(expired.access_token)).toBe(
      'access token expired at 2030-01-01T01:00:00.000Z',
    );
    // Whose it was, as for any API request (SPEC §8: the user and client where they apply).
    expect(m.entries.at(-1)).toMatchObject({ user: 'alice', client: 'demo-client' });
    expect((await m.refresh(expired.refresh_token)).reason).toBe(
      'refresh token expired with its access token (a refresh must come before the access token expires) at 2030-01-01T01:00:00.000Z',
    );

    const rotated = await m.mint();
    expect((await m.refresh(rotated.refresh_token)).status).toBe(200);
    expect(await m.call(rotated.access_token)).toMatch(
      /^access token replaced by a refresh \(a refresh ends the old pair at once\) at /,
    );

    const revoked = await m.mint();
    await m.revoke(revoked.access_token, 'access_token');
    expect(await m.call(revoked.access_token)).toMatch(/^access token revoked \(RFC 7009\) at /);

    const withRefresh = await m.mint();
    await m.revoke(withRefresh.refresh_token, 'refresh_token');
    expect(await m.call(withRefresh.access_token)).toMatch(
      /^access token revoked with its authorization \(RFC 7009: a revoked refresh token ends its access token\) at /,
    );
    expect((await m.refresh(withRefresh.refresh_token)).reason).toMatch(
      /^refresh token revoked with its authorization/,
    );

    expect(await m.call('never-issued-token')).toBe(
      'unknown access token (never issued by this mock, or ended before its last restart or reset, or more than 10000 token endings ago)',
    );
    await m.app.close();
  });

  it('a token of the other kind says so', async () => {
    const m = mock();
    const pair = await m.mint();
    expect(await m.call(pair.refresh_token)).toBe('a refresh token was sent as the access token');
    await m.revoke(pair.access_token, 'access_token');
    expect((await m.refresh(pair.access_token)).reason).toMatch(
      /^access token sent as the refresh token: access token revoked \(RFC 7009\) at /,
    );
    await m.app.close();
  });

  it('a refresh token rotated away long ago (the reuse check forgot it): replaced by a refresh', async () => {
    const m = mock();
    const first = await m.mint();
    let refresh = first.refresh_token;
    for (let i = 0; i <= ROTATED_PER_GRANT; i++) {
      const next = await m.refresh(refresh);
      expect(next.status).toBe(200);
      refresh = (next.body as { refresh_token: string }).refresh_token;
    }
    expect((await m.refresh(first.refresh_token)).reason).toMatch(
      /^refresh token replaced by a refresh \(a refresh ends the old pair at once\) at /,
    );
    await m.app.close();
  });

  it('keeps the newest endings, the oldest forgotten in order', () => {
    const ended = new EndedTokens(3);
    for (const token of ['a', 'b', 'c', 'b', 'd']) ended.add(token, 'access', 'revoked', 0);
    expect(ended.reason('a', 'access')).toMatch(
      /^unknown access token .* more than 3 token endings ago\)$/,
    );
    for (const token of ['b', 'c', 'd'])
      expect(ended.reason(token, 'access')).toMatch(/^access token revoked at /);
    ended.add('e', 'access', 'expired', 0);
    expect(ended.reason('b', 'access')).toMatch(/^unknown/);
    ended.clear();
    expect(ended.reason('e', 'access')).toMatch(/^unknown/);
  });

  it('a token that ends again is told by its last ending, its owner with it', () => {
    const ended = new EndedTokens(2);
    ended.add('t', 'access', 'revoked', 0, { user: 'alice', clientId: 'demo-client' });
    ended.add('u', 'refresh', 'expired', 1000, { user: 'bob', clientId: 'other' });
    expect(ended.owner('t')).toEqual({ user: 'alice', client: 'demo-client' });
    expect(ended.reason('u', 'access')).toBe(
      'refresh token sent as the access token: refresh token expired at 1970-01-01T00:00:01.000Z',
    );
    ended.add('t', 'refresh', 'expired', 2000);
    expect(ended.reason('t', 'refresh')).toBe('refresh token expired at 1970-01-01T00:00:02.000Z');
    expect(ended.owner('t')).toEqual({});
    expect(ended.owner('u')).toEqual({ user: 'bob', client: 'other' });
    expect(ended.owner('v')).toEqual({});
  });

  it('a reused refresh token is refused as used; the pair the refresh issued lives on', async () => {
    const m = mock();
    const first = await m.mint();
    const renewed = await m.refresh(first.refresh_token);
    expect(renewed.status).toBe(200);
    const reuse = await m.refresh(first.refresh_token);
    expect(reuse).toMatchObject({ status: 400, reason: 'refresh token already used' });
    expect((await m.refresh(renewed.body.refresh_token!)).status).toBe(200);
    await m.app.close();
  });
});
