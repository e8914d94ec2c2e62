import { setupServer } from 'msw/node';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createMockHandlers } from '../../src/mock/msw.js';

const BASE = 'https://das.example.test';
const server = setupServer(...createMockHandlers({ baseUrl: BASE, autoApprove: 'alice' }));
beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
afterAll(() => server.close());

/** The query of an authorization request from the demo client to a made-up app. */
const authorizeQuery = () =>
  new URLSearchParams({
    response_type: 'code',
    client_id: 'demo-client',
    redirect_uri: 'https://app.example.test/cb',
    scope: 'crm',
    state: 'st',
  });

it('msw handlers answer the whole flow on a made-up base URL', async () => {
  const q = authorizeQuery();
  const auth = await fetch(`${BASE}/webservice/authorize/?${q}`, { redirect: 'manual' });
  expect(auth.status).toBe(302);
  const location = new URL(auth.headers.get('location')!);
  expect(location.origin).toBe('https://app.example.test');
  const code = location.searchParams.get('code')!;
  const token = await fetch(`${BASE}/webservice/authorize`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      code,
      client_id: 'demo-client',
      client_secret: 'demo-secret',
    }),
  });
  expect(token.status).toBe(200);
  const { access_token } = (await token.json()) as { access_token: string };
  const rpc = await fetch(`${BASE}/webservice/json/crm`, {
    method: 'POST',
    headers: { authorization: `Bearer ${access_token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', method: 'rpc.discover', id: 1 }),
  });
  const doc = (await rpc.json()) as { result: { servers: { url: string }[] } };
  expect(doc.result.servers[0]!.url).toBe(`${BASE}/webservice/json/crm`);
});

it('the consent page form posts back under the base path', async () => {
  const other = setupServer(...createMockHandlers({ baseUrl: 'https://other.example.test/das/' }));
  server.close();
  other.listen({ onUnhandledRequest: 'error' });
  try {
    const q = authorizeQuery();
    const page = await fetch(`https://other.example.test/das/webservice/authorize/?${q}`);
    // Path-relative: the browser resolves it against https://other.example.test.
    expect(await page.text()).toContain('action="/das/webservice/authorize/"');
    await fetch('https://other.example.test/das/_mock/faults', {
      method: 'POST',
      body: '{"kind":"drop","count":1}',
    });
    await expect(fetch('https://other.example.test/das/webservice/authorize')).rejects.toThrow();
  } finally {
    other.close();
    server.listen({ onUnhandledRequest: 'error' });
  }
});

// Regression: cancelling the body reader half-way left msw's fetch pending forever.
it('refuses a body over 1 MiB with 413 through msw, as the server does', async () => {
  const minted = await fetch(`${BASE}/_mock/tokens`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ user: 'alice', scope: 'crm' }),
  });
  const { access_token } = (await minted.json()) as { access_token: string };
  const huge = 'x'.repeat(1024 * 1024 + 1);
  const api = await fetch(`${BASE}/webservice/json/crm`, {
    method: 'POST',
    headers: { authorization: `Bearer ${access_token}`, 'content-type': 'application/json' },
    body: huge,
    signal: AbortSignal.timeout(5000),
  });
  expect(api.status).toBe(413);
  const form = await fetch(`${BASE}/webservice/authorize`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: `code=${huge}`,
    signal: AbortSignal.timeout(5000),
  });
  expect(form.status).toBe(413);
});
