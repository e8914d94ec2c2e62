import { afterEach, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createMockApp, type MockApp, type MockOptions } from '../../src/mock/index.js';
import { getResponse } from 'msw';
import { createMockHandlers } from '../../src/mock/msw.js';

const BASE = 'http://mock.test';
const CREDS = { client_id: 'demo-client', client_secret: 'demo-secret' };
const REDIRECT = 'http://127.0.0.1:9/callback';

const apps: MockApp[] = [];
afterEach(async () => {
  for (const app of apps.splice(0)) await app.close();
});

/** A mock in process (no socket) that approves as alice at once; a virtual clock for expiry. */
function mock(options: MockOptions = {}) {
  let now = Date.parse('2026-01-01T00:00:00Z');
  const app = createMockApp({ autoApprove: 'alice', now: () => now, ...options });
  apps.push(app);
  const call = (path: string, init: RequestInit = {}) => app(new Request(`${BASE}${path}`, init));
  const oauth = (path: string, params: Record<string, string>) =>
    call(`${path}?${new URLSearchParams(params).toString()}`, { method: 'POST' });
  const code = async () => {
    const q = new URLSearchParams({
      response_type: 'code',
      client_id: 'demo-client',
      redirect_uri: REDIRECT,
      scope: 'crm',
      state: 's-1',
    });
    const answer = await call(`/webservice/authorize/?${q.toString()}`);
    return new URL(answer.headers.get('location')!).searchParams.get('code')!;
  };
  const tokens = async (tokenPath = '/webservice/authorize') => {
    const answer = await oauth(tokenPath, {
      ...CREDS,
      grant_type: 'authorization_code',
      code: await code(),
    });
    expect(answer.status).toBe(200);
    return (await answer.json()) as Record<string, unknown>;
  };
  const refresh = (token: unknown) =>
    oauth('/webservice/authorize/refresh_token', {
      ...CREDS,
      grant_type: 'refresh_token',
      refresh_token: String(token),
    });
  const revoke = (token: string, hint = 'access_token') =>
    oauth('/webservice/authorize/revoke', { ...CREDS, token_type_hint: hint, token });
  const rpc = (token: unknown, method: string) =>
    call('/webservice/json/crm', {
      method: 'POST',
      headers: { authorization: `Bearer ${String(token)}`, 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', method, id: 1 }),
    });
  const advance = (seconds: number) => (now += seconds * 1000);
  return { app, call, oauth, code, tokens, refresh, revoke, rpc, advance };
}

describe('expiresIn quirk', () => {
  it.each([
    [undefined, '3600'],
    ['string', '3600'],
    ['number', 3600],
    ['milliseconds', '3600000'],
  ] as const)('%s sends expires_in as %j', async (expiresIn, expected) => {
    const m = mock({ quirks: expiresIn === undefined ? {} : { expiresIn } });
    const body = await m.tokens();
    expect(body.expires_in).toStrictEqual(expected);
    const refreshed = (await (await m.refresh(body.refresh_token)).json()) as Record<
      string,
      unknown
    >;
    expect(refreshed.expires_in).toStrictEqual(expected);
    // Regression: POST /_mock/tokens answered the SPEC §5 shape whatever the quirk.
    const minted = (await (
      await m.call('/_mock/tokens', {
        method: 'POST',
        body: JSON.stringify({ user: 'alice', scope: 'crm' }),
      })
    ).json()) as Record<string, unknown>;
    expect(minted.expires_in).toStrictEqual(expected);
  });

  it('absent leaves expires_in out of the token and the refresh answer', async () => {
    const m = mock({ quirks: { expiresIn: 'absent' } });
    const body = await m.tokens();
    expect(Object.keys(body).sort()).toEqual(['access_token', 'refresh_token']);
    const refreshed = (await (await m.refresh(body.refresh_token)).json()) as Record<
      string,
      unknown
    >;
    expect('expires_in' in refreshed).toBe(false);
  });
});

describe('refresh quirks', () => {
  it('without quirks a refresh rotates and the old refresh token is refused', async () => {
    const m = mock();
    const first = await m.tokens();
    const second = (await (await m.refresh(first.refresh_token)).json()) as Record<string, unknown>;
    expect(second.refresh_token).not.toBe(first.refresh_token);
    expect((await m.refresh(first.refresh_token)).status).toBe(400);
  });

  it('refreshRotation false answers with the same refresh token and a new access token', async () => {
    const m = mock({ quirks: { refreshRotation: false } });
    const first = await m.tokens();
    const second = (await (await m.refresh(first.refresh_token)).json()) as Record<string, unknown>;
    expect(second.refresh_token).toBe(first.refresh_token);
    expect(second.access_token).not.toBe(first.access_token);
    expect((await m.rpc(first.access_token, 'contacts.list')).status).toBe(401);
    expect((await m.rpc(second.access_token, 'contacts.list')).status).toBe(200);
    // Handed back unchanged it is a used one: refused the next time, as a used token is, unless
    // oldRefreshTokenAccepted (the quirks compose as their rows say); the access token works on.
    const reuse = await m.refresh(first.refresh_token);
    expect(reuse.status).toBe(400);
    expect(await reuse.json()).toMatchObject({ error: 'invalid_grant' });
    expect((await m.rpc(second.access_token, 'contacts.list')).status).toBe(200);
  });

  it('refreshRotation false with oldRefreshTokenAccepted: one refresh token that keeps working', async () => {
    const m = mock({ quirks: { refreshRotation: false, oldRefreshTokenAccepted: true } });
    const first = await m.tokens();
    for (let i = 0; i < 3; i++) {
      const next = (await (await m.refresh(first.refresh_token)).json()) as Record<string, unknown>;
      expect(next.refresh_token).toBe(first.refresh_token);
      expect((await m.rpc(next.access_token, 'contacts.list')).status).toBe(200);
    }
  });

  it('oldRefreshTokenAccepted true: a used refresh token still refreshes', async () => {
    const m = mock({ quirks: { oldRefreshTokenAccepted: true } });
    const first = await m.tokens();
    const second = (await (await m.refresh(first.refresh_token)).json()) as Record<string, unknown>;
    expect(second.refresh_token).not.toBe(first.refresh_token);
    const again = await m.refresh(first.refresh_token);
    expect(again.status).toBe(200);
    const third = (await again.json()) as Record<string, unknown>;
    expect((await m.rpc(third.access_token, 'contacts.list')).status).toBe(200);
  });

  it('refreshAfterExpiry: refused after expiry without it, accepted with it', async () => {
    const plain = mock({ accessTtl: 60 });
    const a = await plain.tokens();
    plain.advance(61);
    expect((await plain.refresh(a.refresh_token)).status).toBe(400);

    const quirky = mock({ accessTtl: 60, quirks: { refreshAfterExpiry: true } });
    const b = await quirky.tokens();
    quirky.advance(61);
    expect((await quirky.rpc(b.access_token, 'contacts.list')).status).toBe(401);
    const answer = await quirky.refresh(b.refresh_token);
    expect(answer.status).toBe(200);
    const fresh = (await answer.json()) as Record<string, unknown>;
    expect((await quirky.rpc(fresh.access_token, 'contacts.list')).status).toBe(200);
  });
});

describe('revokeUnknownToken and errorBody quirks', () => {
  it('revoking an unknown token: 200 by default, 400 invalid_request with "error"', async () => {
    const plain = mock();
    expect(await (await plain.revoke('no-such-token')).json()).toEqual({ result: 'Token revoked' });
    const quirky = mock({ quirks: { revokeUnknownToken: 'error' } });
    const answer = await quirky.revoke('no-such-token');
    expect(answer.status).toBe(400);
    expect(await answer.json()).toEqual({ error: 'invalid_request' });
    const { access_token } = await quirky.tokens();
    expect(await (await quirky.revoke(String(access_token))).json()).toEqual({
      result: 'Token revoked',
    });
  });

  it('errorBody text: OAuth errors are text/plain holding the code alone; the API keeps JSON', async () => {
    const m = mock({ quirks: { errorBody: 'text' } });
    const answer = await m.oauth('/webservice/authorize', {
      client_id: 'demo-client',
      client_secret: 'wrong',
      grant_type: 'authorization_code',
      code: 'x',
    });
    expect(answer.status).toBe(401);
    expect(answer.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(await answer.text()).toBe('invalid_client');
    const grant = await m.refresh('unknown-refresh-token');
    expect(await grant.text()).toBe('invalid_grant');
    const api = await m.rpc('nope', 'contacts.list');
    expect(api.status).toBe(401);
    expect(((await api.json()) as { error: string }).error).toBe('invalid_token');
  });
});

describe('rpcDiscover and tokenPath quirks', () => {
  it('rpcDiscover false answers -32601; other methods still work', async () => {
    const m = mock({ quirks: { rpcDiscover: false } });
    const { access_token } = await m.tokens();
    const body = (await (await m.rpc(access_token, 'rpc.discover')).json()) as {
      error?: { code: number };
    };
    expect(body.error?.code).toBe(-32601);
    const list = (await (await m.rpc(access_token, 'contacts.list')).json()) as {
      result?: unknown;
    };
    expect(list.result).toBeDefined();
  });

  it('tokenPath moves the token endpoint; the old path answers 404 to token requests', async () => {
    const m = mock({ quirks: { tokenPath: '/oauth/token' } });
    const body = await m.tokens('/oauth/token');
    expect(typeof body.access_token).toBe('string');
    const old = await m.oauth('/webservice/authorize', {
      ...CREDS,
      grant_type: 'authorization_code',
      code: 'x',
    });
    expect(old.status).toBe(404);
    // Regression: a token request still reached the old path by its slash spelling, or with an
    // authorization request's response_type beside its grant_type.
    for (const [path, extra] of [
      ['/webservice/authorize/', {}],
      ['/webservice/authorize', { response_type: 'code' }],
    ] as const) {
      const again = await m.oauth(path, {
        ...CREDS,
        ...extra,
        grant_type: 'authorization_code',
        code: await m.code(),
      });
      expect(again.status, path).toBe(404);
    }
    // Authorization requests stay at both spellings.
    for (const path of ['/webservice/authorize/', '/webservice/authorize']) {
      const query = new URLSearchParams({
        response_type: 'code',
        client_id: 'demo-client',
        redirect_uri: REDIRECT,
        scope: 'crm',
        state: 's-2',
      });
      const answer = await m.call(`${path}?${query.toString()}`);
      expect(answer.status, path).toBe(302);
      const location = new URL(answer.headers.get('location')!);
      expect(location.searchParams.get('code'), path).toMatch(/^[A-Za-z0-9_-]{43}$/);
    }
    // Refresh and revoke stay where they were.
    expect((await m.refresh(body.refresh_token)).status).toBe(200);
  });
});

describe('the quirks option and /_mock/quirks', () => {
  it('takes a file path; a bad member or value fails naming it', () => {
    const dir = mkdtempSync(join(tmpdir(), 'dasvc-quirks-'));
    try {
      const file = join(dir, 'quirks.json');
      writeFileSync(file, JSON.stringify({ expiresIn: 'number' }));
      const app = createMockApp({ quirks: file });
      apps.push(app);
      writeFileSync(file, JSON.stringify({ expiresIn: 'hours' }));
      expect(() => createMockApp({ quirks: file })).toThrow(/expiresIn: unknown value "hours"/);
      expect(() => createMockApp({ quirks: { colour: 'red' } as never })).toThrow(
        /unknown member "colour"/,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('GET shows the quirks, POST replaces them at run time, a bad body is a 400 naming it', async () => {
    const m = mock({ quirks: { expiresIn: 'number' } });
    expect(await (await m.call('/_mock/quirks')).json()).toEqual({ expiresIn: 'number' });
    const post = (body: unknown) =>
      m.call('/_mock/quirks', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    const bad = await post({ refreshRotation: 'no' });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error_description: string }).error_description).toMatch(
      /refreshRotation: unknown value "no"/,
    );
    expect(await (await m.call('/_mock/quirks')).json()).toEqual({ expiresIn: 'number' });
    expect((await post({ expiresIn: 'absent' })).status).toBe(200);
    const body = await m.tokens();
    expect('expires_in' in body).toBe(false);
    expect(await (await post({})).json()).toEqual({});
    expect((await m.tokens()).expires_in).toBe('3600');
  });

  it('createMockHandlers takes the quirks option too', async () => {
    const handlers = createMockHandlers({
      baseUrl: BASE,
      autoApprove: 'alice',
      quirks: { rpcDiscover: false },
    });
    const response = await getResponse(handlers, new Request(`${BASE}/_mock/quirks`));
    expect(await response?.json()).toEqual({ rpcDiscover: false });
  });
});
