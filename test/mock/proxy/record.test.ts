// SPEC §6: `dasvc mock --proxy --record DIR` in front of a second mock that plays the real
// installation; the whole login + rpc flow passes through it; then DIR replays the same answers
// with no upstream, holds no secret, and recording again adds to it.
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMockApp, startMockServer, type MockServer } from '../../../src/mock/index.js';
import { loadFixtures } from '../../../src/mock/fixture-format/load-fixtures.js';

const REDIRECT = 'http://127.0.0.1:9/callback';
const CLIENT = { id: 'demo-client', secret: 'demo-secret' };

/** Every secret value the test saw pass: none may be found in DIR. */
const secrets = new Set<string>([CLIENT.secret]);

let upstream: MockServer;
let dir: string;

/** The calls an integrator's app makes, with the answers the real installation gave. */
const CALLS: { scope: string; body: unknown }[] = [
  { scope: 'crm', body: { jsonrpc: '2.0', method: 'contacts.list', id: 1 } },
  { scope: 'crm', body: { jsonrpc: '2.0', method: 'contacts.get', params: { id: 1 }, id: 2 } },
  { scope: 'crm', body: { jsonrpc: '2.0', method: 'contacts.get', params: { id: 3 }, id: 3 } },
  { scope: 'wiki', body: { jsonrpc: '2.0', method: 'pages.list', params: { limit: 1 }, id: 4 } },
  { scope: 'wiki', body: { jsonrpc: '2.0', method: 'pages.list', params: {}, id: 5 } },
  {
    scope: 'crm',
    body: [
      { jsonrpc: '2.0', method: 'contacts.get', params: { id: 2 }, id: 'a' },
      { jsonrpc: '2.0', method: 'contacts.list', id: 'b' },
      { jsonrpc: '2.0', method: 'contacts.list' },
    ],
  },
  // No valid JSON-RPC 2.0 request: refused (-32600), kept as that error, never replayed for a call.
  { scope: 'crm', body: { jsonrpc: '1.0', method: 'contacts.get', params: { id: 5 }, id: 6 } },
  // The same, with the params of a valid call recorded above: kept apart, replacing nothing.
  { scope: 'crm', body: { jsonrpc: '1.0', method: 'contacts.get', params: { id: 1 }, id: 7 } },
];

function s256(verifier: string): string {
  return createHash('sha256').update(verifier).digest('base64url');
}

/** Authorization-code flow with PKCE through `base` (SERVICE.md 4.1–4.2); returns the tokens. */
async function login(base: string): Promise<{ access: string; refresh: string }> {
  const state = randomBytes(16).toString('base64url');
  const verifier = randomBytes(32).toString('base64url');
  secrets.add(state).add(verifier);
  const authorize = new URL(`${base}/webservice/authorize/`);
  for (const [k, v] of Object.entries({
    response_type: 'code',
    client_id: CLIENT.id,
    redirect_uri: REDIRECT,
    scope: 'crm wiki',
    state,
    code_challenge: s256(verifier),
    code_challenge_method: 'S256',
  }))
    authorize.searchParams.set(k, v);
  const redirect = await fetch(authorize, { redirect: 'manual' });
  expect(redirect.status).toBe(302);
  // Location untouched: the browser goes back to the client's own redirect URI.
  const location = new URL(redirect.headers.get('location')!);
  expect(`${location.origin}${location.pathname}`).toBe(REDIRECT);
  expect(location.searchParams.get('state')).toBe(state);
  const code = location.searchParams.get('code')!;
  secrets.add(code);
  const token = new URL(`${base}/webservice/authorize`);
  for (const [k, v] of Object.entries({
    grant_type: 'authorization_code',
    code,
    redirect_uri: REDIRECT,
    client_id: CLIENT.id,
    client_secret: CLIENT.secret,
    code_verifier: verifier,
  }))
    token.searchParams.set(k, v);
  const res = await fetch(token, { method: 'POST' });
  expect(res.status).toBe(200);
  expect(res.headers.get('cache-control')).toBe('no-store');
  const body = (await res.json()) as { access_token: string; refresh_token: string };
  secrets.add(body.access_token).add(body.refresh_token);
  return { access: body.access_token, refresh: body.refresh_token };
}

async function rpc(base: string, token: string, scope: string, body: unknown) {
  const res = await fetch(`${base}/webservice/json/${scope}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  secrets.add(`Bearer ${token}`);
  return { status: res.status, body: res.status === 200 ? ((await res.json()) as unknown) : null };
}

/** Every file of DIR as text. */
function folderText(folder: string): string {
  return readdirSync(folder, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => readFileSync(join(e.parentPath, e.name), 'utf8'))
    .join('\n');
}

const recordedAnswers: unknown[] = [];

beforeAll(async () => {
  upstream = await startMockServer({ port: 0, autoApprove: 'alice' });
  dir = mkdtempSync(join(tmpdir(), 'dasvc-record-'));
  const proxy = await startMockServer({ port: 0, proxy: upstream.url, record: dir });
  try {
    const tokens = await login(proxy.url);
    for (const call of CALLS)
      recordedAnswers.push(await rpc(proxy.url, tokens.access, call.scope, call.body));
    // Refresh and revoke pass too (their secrets must not be written either).
    const refresh = new URL(`${proxy.url}/webservice/authorize/refresh_token`);
    refresh.searchParams.set('grant_type', 'refresh_token');
    refresh.searchParams.set('refresh_token', tokens.refresh);
    const basic = `Basic ${Buffer.from(`${CLIENT.id}:${CLIENT.secret}`).toString('base64')}`;
    secrets.add(basic);
    const refreshed = await fetch(refresh, { method: 'POST', headers: { authorization: basic } });
    expect(refreshed.status).toBe(200);
    const pair = (await refreshed.json()) as { access_token: string; refresh_token: string };
    secrets.add(pair.access_token).add(pair.refresh_token);
    const revoke = await fetch(`${proxy.url}/webservice/authorize/revoke`, {
      method: 'POST',
      headers: { authorization: basic, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: pair.refresh_token, token_type_hint: 'refresh_token' }),
    });
    expect(await revoke.json()).toEqual({ result: 'Token revoked' });
    // Clients the installation refused are none the replay may accept.
    const stranger = new URL(`${proxy.url}/webservice/authorize/`);
    stranger.search = new URLSearchParams({
      response_type: 'code',
      client_id: 'stranger',
      redirect_uri: REDIRECT,
      scope: 'crm',
      state: 'x'.repeat(16),
    }).toString();
    expect((await fetch(stranger, { redirect: 'manual' })).status).toBe(400);
    const unknown = await fetch(`${proxy.url}/webservice/authorize`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'refresh_token',
        refresh_token: 'no-such-token',
        client_id: 'impostor',
        client_secret: 'impostor-secret',
      }),
    });
    expect(unknown.status).toBe(401);
    // The control endpoints stay local: the proxy's journal saw the calls.
    const journal = (await (await fetch(`${proxy.url}/_mock/journal`)).json()) as {
      entries: { path: string }[];
    };
    expect(journal.entries.some((e) => e.path === '/webservice/json/crm')).toBe(true);
  } finally {
    await proxy.close();
  }
});

afterAll(async () => {
  await upstream.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('--proxy --record', () => {
  it('passes the upstream answers through unchanged', () => {
    expect(recordedAnswers[0]).toMatchObject({ status: 200, body: { result: expect.any(Array) } });
    expect(recordedAnswers[2]).toMatchObject({ body: { error: { code: expect.any(Number) } } });
    expect((recordedAnswers[5] as { body: unknown[] }).body).toHaveLength(2);
    expect(recordedAnswers[6]).toMatchObject({ body: { error: { code: -32600 }, id: 6 } });
  });

  it('writes a fixtures folder that --fixtures reads as it is', () => {
    const fixtures = loadFixtures(dir);
    expect([...fixtures.instances.keys()]).toEqual(['crm', 'wiki']);
    expect(fixtures.users.get('recorded')?.instances).toEqual(new Set(['crm', 'wiki']));
    expect([...fixtures.clients.keys()]).toEqual(['demo-client']);
    expect(fixtures.clients.get('demo-client')).toEqual({
      id: 'demo-client',
      secret: 'recorded-secret',
    });
    const crm = JSON.parse(readFileSync(join(dir, 'instances', 'crm.openrpc.json'), 'utf8'));
    expect(crm.$schema).toMatch(/schema\/openrpc\.schema\.json$/);
    expect(JSON.parse(readFileSync(join(dir, 'users.json'), 'utf8')).$schema).toMatch(
      /schema\/users\.schema\.json$/,
    );
    const get = crm.methods.find((m: { name: string }) => m.name === 'contacts.get');
    expect(get.params).toEqual([{ name: 'id', required: true, schema: { type: 'integer' } }]);
    expect(get.result.schema).toMatchObject({ type: 'object', required: ['id', 'name', 'email'] });
    // One pairing per distinct params: ids 1, 3 (an error) and 2; and the invalid requests'
    // refusals, marked, which changed no params schema (above), the one with id 1 beside the
    // valid call's answer rather than in its place.
    expect(get.examples).toHaveLength(5);
    expect(get.examples[0]).toMatchObject({ params: [{ name: 'id', value: 1 }], result: {} });
    expect(get.examples[0]).not.toHaveProperty('x-invalid-request');
    expect(get.examples[1]['x-error']).toMatchObject({ code: expect.any(Number) });
    for (const [i, id] of [
      [3, 5],
      [4, 1],
    ] as const) {
      expect(get.examples[i]).toMatchObject({
        params: [{ name: 'id', value: id }],
        'x-error': { code: -32600 },
        'x-invalid-request': 'jsonrpc must be "2.0"',
      });
    }
    const list = crm.methods.find((m: { name: string }) => m.name === 'contacts.list');
    expect(list.examples).toHaveLength(1);
  });

  it('never writes a secret to DIR', () => {
    const text = folderText(dir);
    expect(secrets.size).toBeGreaterThan(8);
    for (const secret of secrets)
      expect(text.includes(secret), `found ${secret.slice(0, 4)}…`).toBe(false);
  });

  it('replays the same answers to the same calls, with no upstream', async () => {
    const replay = createMockApp({ fixtures: dir });
    try {
      const minted = await replay(
        new Request('http://replay.test/_mock/tokens', {
          method: 'POST',
          body: JSON.stringify({ user: 'recorded', scope: 'crm wiki', client_id: 'demo-client' }),
        }),
      );
      const { access_token: token } = (await minted.json()) as { access_token: string };
      for (const [i, call] of CALLS.entries()) {
        const res = await replay(
          new Request(`http://replay.test/webservice/json/${call.scope}`, {
            method: 'POST',
            headers: { authorization: `Bearer ${token}` },
            body: JSON.stringify(call.body),
          }),
        );
        expect({ status: res.status, body: await res.json() }).toEqual(recordedAnswers[i]);
      }
      // Other params, in the inferred schema or not (SPEC §6): -32001 with the recorded params.
      const other = (params: unknown) =>
        replay(
          new Request('http://replay.test/webservice/json/crm', {
            method: 'POST',
            headers: { authorization: `Bearer ${token}` },
            body: JSON.stringify({ jsonrpc: '2.0', method: 'contacts.get', params, id: 9 }),
          }),
        );
      // { id: 5 } was only sent in an invalid request: no answer of a call.
      for (const params of [{ id: 4 }, { id: 5 }, {}, { id: true }, { id: 1, extra: 'x' }]) {
        expect(((await (await other(params)).json()) as { error: unknown }).error).toEqual({
          code: -32001,
          message: 'no recorded answer',
          data: [{ id: 1 }, { id: 3 }, { id: 2 }],
        });
      }
    } finally {
      await replay.close();
    }
  });

  it('recording again adds to the folder', async () => {
    const again = await startMockServer({
      port: 0,
      proxy: upstream.url,
      record: dir,
      recordUser: 'recorded',
    });
    try {
      const { access } = await login(again.url);
      await rpc(again.url, access, 'wiki', {
        jsonrpc: '2.0',
        method: 'pages.list',
        params: { limit: 2 },
        id: 1,
      });
      // A notification (204, no answer): its method is seen, with its params and no example.
      const touched = await rpc(again.url, access, 'wiki', {
        jsonrpc: '2.0',
        method: 'pages.touch',
        params: { slug: 'home' },
      });
      expect(touched.status).toBe(204);
      // SPEC §6 "as calls pass": the folder holds each call once its answer is in, mock running.
      const wiki = readFileSync(join(dir, 'instances', 'wiki.openrpc.json'), 'utf8');
      expect(wiki).toContain('"pages.list"');
      expect(wiki).toContain('"pages.touch"');
      const users = JSON.parse(readFileSync(join(dir, 'users.json'), 'utf8'));
      expect(users.recorded.instances).toContain('wiki');
    } finally {
      await again.close();
    }
    const touch = loadFixtures(dir).instances.get('wiki')!.methods.get('pages.touch')!;
    expect(touch.params.map((p) => [p.name, p.required, p.schema])).toEqual([
      ['slug', true, { type: 'string' }],
    ]);
    expect(touch.examples).toEqual([]);
    const wiki = loadFixtures(dir).instances.get('wiki')!;
    expect(wiki.methods.get('pages.list')!.examples.map((e) => e.params)).toEqual([
      { limit: 1 },
      {},
      { limit: 2 },
    ]);
    // Read back and written again as they were, the invalid request's refusal still marked.
    const examples = loadFixtures(dir).instances.get('crm')!.methods.get('contacts.get')!.examples;
    expect(examples.map((e) => e.invalidRequest)).toEqual([
      undefined,
      undefined,
      undefined,
      'jsonrpc must be "2.0"',
      'jsonrpc must be "2.0"',
    ]);
    expect(folderText(dir)).not.toContain(CLIENT.secret);
  });
});
