import { describe, expect, it } from 'vitest';
import { toFetchResponse } from '../../src/mock/adapters/fetch-adapter.js';
import { createMockApp } from '../../src/mock/index.js';

const BASE = 'http://mock.test';

function app(now = { t: Date.parse('2030-01-01T00:00:00Z') }, options = {}) {
  return { handler: createMockApp({ now: () => now.t, ...options }), now };
}

async function mint(
  handler: (r: Request) => Promise<Response>,
  body = { user: 'alice', scope: 'crm' },
) {
  const res = await handler(
    new Request(`${BASE}/_mock/tokens`, { method: 'POST', body: JSON.stringify(body) }),
  );
  return (await res.json()) as { access_token: string; refresh_token: string; expires_in: string };
}

const list = (token: string) =>
  new Request(`${BASE}/webservice/json/crm`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}` },
    body: '{"jsonrpc":"2.0","method":"contacts.list","id":1}',
  });

describe('createMockApp (no socket)', () => {
  it('answers a fetch Request with a Response', async () => {
    const { handler } = app();
    const t = await mint(handler);
    const res = await handler(list(t.access_token));
    expect(res.status).toBe(200);
    expect(((await res.json()) as { result: unknown[] }).result).toHaveLength(2);
  });

  it('the injected clock drives expiry', async () => {
    const { handler, now } = app();
    const t = await mint(handler);
    now.t += 3599_000;
    expect((await handler(list(t.access_token))).status).toBe(200);
    now.t += 1000;
    expect((await handler(list(t.access_token))).status).toBe(401);
  });

  it('the consent form action is path-relative, whatever the origin', async () => {
    const { handler } = app();
    const q = new URLSearchParams({
      response_type: 'code',
      client_id: 'demo-client',
      redirect_uri: 'https://app.test/cb',
      scope: 'crm',
      state: 's',
    });
    const res = await handler(
      new Request(`https://das.elsewhere.test:8443/webservice/authorize/?${q}`),
    );
    const html = await res.text();
    expect(html).toContain('action="/webservice/authorize/"');
    expect(html).not.toContain('das.elsewhere.test');
  });

  it('a non-ASCII redirect_uri gets a valid Location, not a rejected promise', async () => {
    const { handler } = app({ t: Date.parse('2030-01-01T00:00:00Z') }, { autoApprove: 'alice' });
    for (const responseType of ['code', 'token']) {
      const q = `response_type=${responseType}&client_id=demo-client&scope=crm&state=x&redirect_uri=http://127.0.0.1/cb/%E2%82%AC`;
      const res = await handler(new Request(`${BASE}/webservice/authorize/?${q}`));
      expect(res.status).toBe(302);
      expect(res.headers.get('location')).toMatch(/^http:\/\/127\.0\.0\.1\/cb\/%E2%82%AC\?/);
    }
  });

  it('an answer fetch cannot represent becomes a JSON 500', async () => {
    const res = toFetchResponse({
      status: 302,
      headers: { location: 'http://x/\r\nA: b' },
      body: '',
    });
    expect(res.status).toBe(500);
    expect(await res.json()).toEqual({
      error: 'server_error',
      error_description: 'internal error in the mock',
    });
  });

  it('a drop fault is a network error Response', async () => {
    const { handler } = app();
    await handler(
      new Request(`${BASE}/_mock/faults`, { method: 'POST', body: '{"kind":"drop","count":1}' }),
    );
    const res = await handler(new Request(`${BASE}/webservice/authorize`));
    expect(res.type).toBe('error');
  });

  it('unknown paths are 404 JSON', async () => {
    const { handler } = app();
    const res = await handler(new Request(`${BASE}/nope`));
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ error: 'not_found' });
  });

  it('a body over 1 MiB is 413 without reading it all', async () => {
    const { handler } = app();
    const t = await mint(handler);
    const res = await handler(
      new Request(`${BASE}/webservice/json/crm`, {
        method: 'POST',
        headers: { authorization: `Bearer ${t.access_token}` },
        body: 'x'.repeat(1024 * 1024 + 1),
      }),
    );
    expect(res.status).toBe(413);
  });

  it('log lines redact the query and never show secrets', async () => {
    const lines: string[] = [];
    const handler = createMockApp({ log: (l) => lines.push(l) });
    await handler(
      new Request(
        `${BASE}/webservice/authorize?client_id=demo-client&client_secret=demo-secret&grant_type=authorization_code&code=abc123`,
        { method: 'POST' },
      ),
    );
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z POST \/webservice\/authorize\?client_id=demo-client&client_secret=\[redacted\]&grant_type=authorization_code&code=\[redacted\] 400 \d+\.\dms client=demo-client invalid_grant: unknown or expired authorization code$/,
    );
  });

  // Regression: a plain PKCE challenge is the verifier itself, and the log showed it.
  it('log lines mask code_challenge (a plain one is the verifier)', async () => {
    const lines: string[] = [];
    const handler = createMockApp({ log: (l) => lines.push(l) });
    const verifier = 'v'.repeat(43);
    await handler(
      new Request(
        `${BASE}/webservice/authorize/?client_id=demo-client&response_type=code&redirect_uri=http%3A%2F%2F127.0.0.1%3A9%2Fcb&scope=crm&state=s&code_challenge=${verifier}&code_challenge_method=plain`,
      ),
    );
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain('code_challenge=[redacted]&code_challenge_method=plain');
    expect(lines[0]).not.toContain(verifier);
  });

  // Regression: in process (and through msw) a HEAD answer carried the body node:http leaves out.
  it('a HEAD answer has no body, as the server sends it', async () => {
    const { handler } = app();
    for (const path of ['/webservice/json/crm', '/no/such', '/_mock/journal']) {
      const res = await handler(new Request(`${BASE}${path}`, { method: 'HEAD' }));
      expect(res.status, path).toBeGreaterThanOrEqual(200);
      expect(res.body, path).toBeNull();
    }
  });

  it('a basePath prefixes every route', async () => {
    const handler = createMockApp({ basePath: '/das' });
    expect((await handler(new Request(`${BASE}/webservice/authorize`))).status).toBe(404);
    const res = await handler(new Request(`${BASE}/das/webservice/authorize`));
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: 'invalid_request' });
  });
});
