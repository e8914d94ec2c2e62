import { request, type Dispatcher } from 'undici';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { MockServer } from '../../src/mock/index.js';
import {
  DEMO,
  DEMO_CREDENTIALS,
  getCode,
  login,
  mint,
  refresh,
  startMock,
  type TokenBody,
  tokenWorks,
} from '../helpers/mock-client.js';

/** mulberry32: a seeded PRNG, so a failure replays exactly. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const SEED = 20_240_611;
const COUNT = 3000;

/** redirect_uri values as they appear in a query string (percent-encoding included). */
const NASTY_REDIRECTS = [
  'http://127.0.0.1/cb/%E2%82%AC',
  'http://127.0.0.1/cb%0D%0ASet-Cookie:x=1',
  'http://127.0.0.1/cb%0ALocation:%20http://evil.example/',
  'http://127.0.0.1/cb/%E9',
  'http://127.0.0.1/c%20b',
  'http://127.0.0.1/cb%09',
  'http://127.0.0.1/cb%00',
  'http://127.0.0.1/cb%C2%85',
  'http://127.0.0.1/cb%E3%80%80',
  'http://127.0.0.1/cb/%C3%BC?q=%E2%82%AC',
  'http://b%C3%BCcher.example/cb',
  'https://app.example.test/cb?x=%FF',
  'http://127.0.0.1/cb?',
  'http://127.0.0.1/cb?a=1&',
  "http://127.0.0.1/cb/'%22%3C%3E%60%7B%7D%7C%5E",
  'http://[::1]:9/cb',
  'javascript:alert(1)//',
];

/** state values as they appear in a query string. */
const NASTY_STATES = [
  'x',
  '%FF',
  '%C3',
  '%E2%82%AC',
  '%0D%0A',
  'a%20b%26c%3Dd',
  '100%',
  '%zz',
  '%F0%9F%98%80',
];

let mock: MockServer;
let kept: TokenBody;
let liveCode: string;
beforeAll(async () => {
  mock = await startMock();
  kept = await login(mock.url, { scope: 'crm wiki' });
  liveCode = await getCode(mock.url);
});
afterAll(() => mock.close());

it(`${COUNT} malformed requests: no 5xx, every answer well-formed, state intact`, async () => {
  const rnd = prng(SEED);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(rnd() * items.length)]!;
  const junk = (max: number) => {
    const alphabet = 'aZ09 -_.~%+&=?#/\\"\'{}[]:,\u00e9\u4e2d\u{1F600}\n\t\u0000';
    let s = '';
    const n = Math.floor(rnd() * max);
    for (let i = 0; i < n; i++) s += pick([...alphabet]);
    return s;
  };
  const values = () =>
    pick([
      junk(20),
      '',
      'code',
      'refresh_token',
      'authorization_code',
      'access_token',
      kept.access_token.slice(0, 20),
      '%zz',
      '%',
      '\u00ff',
      'x'.repeat(5000),
      String(Number.MAX_SAFE_INTEGER) + '9999',
      '-1',
      'null',
      ...NASTY_REDIRECTS,
      ...NASTY_STATES,
    ]);
  const names = [
    'response_type',
    'client_id',
    'client_secret',
    'redirect_uri',
    'scope',
    'state',
    'grant_type',
    'code',
    'refresh_token',
    'token',
    'token_type_hint',
    'code_verifier',
    'code_challenge',
    'code_challenge_method',
    'decision',
    'user',
    junk(8),
  ];
  const query = () => {
    const pairs: string[] = [];
    const n = Math.floor(rnd() * 8);
    for (let i = 0; i < n; i++) {
      const name = pick(names);
      const value = rnd() < 0.3 ? values() : encodeURIComponent(values());
      pairs.push(`${encodeURIComponent(name)}=${value}`);
      if (rnd() < 0.1) pairs.push(`${encodeURIComponent(name)}=dup`);
    }
    return pairs.join('&');
  };
  const rpcBody = (): unknown => {
    const id = pick<unknown>([1, 'x', null, {}, [], 1e308, -0, 2 ** 80, 1.5, true, undefined]);
    const method = pick<unknown>([
      'contacts.list',
      'contacts.get',
      'rpc.discover',
      'pages.list',
      '',
      5,
      null,
      'rpc.x',
      junk(10),
    ]);
    const params = pick<unknown>([
      undefined,
      {},
      [],
      { id: 1 },
      { id: '1' },
      { id: 2 ** 60 },
      [1, 2, 3],
      'x',
      null,
      7,
      { id: { $gt: 0 } },
      [[[[[]]]]],
    ]);
    const jsonrpc = pick<unknown>(['2.0', '2.0', '1.0', 2, undefined]);
    const request: Record<string, unknown> = { jsonrpc, method, params };
    if (id !== undefined) request.id = id;
    return request;
  };
  const body = (): string | undefined => {
    switch (Math.floor(rnd() * 9)) {
      case 0:
        return undefined;
      case 1:
        return junk(200);
      case 2:
        return JSON.stringify(rpcBody());
      case 3:
        return JSON.stringify(Array.from({ length: Math.floor(rnd() * 5) }, rpcBody));
      case 4:
        return query();
      case 5:
        return '['.repeat(Math.floor(rnd() * 5000)) + ']'.repeat(Math.floor(rnd() * 5000));
      case 6:
        return rnd() < 0.05
          ? 'x'.repeat(1024 * 1024 + 10)
          : '{"jsonrpc":"2.0","method":"contacts.list","id":' + '9'.repeat(400) + '}';
      case 7:
        return JSON.stringify({
          user: pick(['alice', 'bob', 'x', 1]),
          scope: pick(['crm', 'wiki nope', '', 3]),
          client_id: pick(['demo-client', 'x', null]),
        });
      default:
        return JSON.stringify(pick([null, true, 1, 'str', {}, []]));
    }
  };
  const paths = [
    '/webservice/authorize/',
    '/webservice/authorize',
    '/webservice/authorize/refresh_token',
    '/webservice/authorize/revoke',
    '/webservice/json/crm',
    '/webservice/json/wiki',
    '/webservice/json/nope',
    '/webservice/json/',
    '/webservice/json/crm/x',
    '/webservice/json/%zz',
    '/',
    '/_mock/journal',
    '/_mock/tokens',
    '/_mock/nope',
    `/${junk(10).replace(/[^a-z0-9]/gi, '')}`,
  ];
  const authorization = () =>
    pick([
      undefined,
      `Bearer ${kept.access_token}`,
      'Bearer',
      'Bearer    ',
      `Bearer ${junk(30).replace(/[^\x21-\x7e]/g, '')}`,
      'Basic',
      'Basic !!!',
      `Basic ${Buffer.from(junk(20)).toString('base64')}`,
      `Basic ${Buffer.from(`${DEMO.id}:${DEMO.secret}`).toString('base64')}`,
      'Digest x',
      'bearer a b c',
    ]);
  const contentType = () =>
    pick([
      undefined,
      'application/json',
      'application/x-www-form-urlencoded',
      'text/plain',
      'multipart/form-data; boundary=x',
      'application/x-www-form-urlencoded; charset=utf-16',
    ]);

  const failures: string[] = [];
  let next = 0;
  const worker = async () => {
    while (next < COUNT) {
      const n = next++;
      const method = pick(['GET', 'POST', 'POST', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS']);
      const path = pick(paths);
      const q = rnd() < 0.7 ? query() : '';
      const headers: Record<string, string> = {};
      const auth = authorization();
      if (auth) headers.authorization = auth;
      const type = contentType();
      if (type) headers['content-type'] = type;
      if (rnd() < 0.1) headers['x-junk'] = junk(100).replace(/[^\x20-\x7e]/g, '');
      const payload = method === 'GET' ? undefined : body();
      // undici's request, not fetch: no Request/Response objects (a third of the CPU of 3,000
      // calls), redirects never followed, and the answer's headers as sent.
      const res = await request(`${mock.url}${path}${q ? `?${q}` : ''}`, {
        method: method as Dispatcher.HttpMethod,
        headers,
        ...(payload === undefined ? {} : { body: payload }),
      });
      const text = await res.body.text();
      const status = res.statusCode;
      const describe = `#${n} ${method} ${path}?${q.slice(0, 80)} → ${status}`;
      if (status >= 500) failures.push(`${describe}: ${text.slice(0, 200)}`);
      const type2 = String(res.headers['content-type'] ?? '');
      if (status === 204 || status === 302) {
        if (text !== '') failures.push(`${describe}: body on ${status}`);
      } else if (type2.startsWith('text/html')) {
        if (!text.startsWith('<!doctype html>')) failures.push(`${describe}: broken HTML`);
      } else {
        try {
          JSON.parse(text);
        } catch {
          failures.push(`${describe}: not JSON: ${text.slice(0, 100)}`);
        }
      }
    }
  };
  await Promise.all(Array.from({ length: 16 }, worker));
  expect(failures.slice(0, 10)).toEqual([]);

  // State intact: the token issued before still works, its refresh still rotates, the code still exchanges.
  expect(await tokenWorks(mock.url, kept.access_token)).toBe(true);
  const q = new URLSearchParams({
    ...DEMO_CREDENTIALS,
    grant_type: 'authorization_code',
    code: liveCode,
  });
  expect((await fetch(`${mock.url}/webservice/authorize?${q}`, { method: 'POST' })).status).toBe(
    200,
  );
  const rotated = await refresh(mock.url, kept.refresh_token);
  expect(rotated.status).toBe(200);
  const fresh = await mint(mock.url);
  expect(await tokenWorks(mock.url, fresh.access_token)).toBe(true);
  // A fixed count of requests, one after the other: seconds when idle, many times that on a
  // loaded machine; the count is the bound, the timeout only catches a hang.
}, 120_000);

it('authorization requests with hostile redirect_uri and state: every Location is a valid header', async () => {
  const auto = await startMock({ autoApprove: 'alice' });
  const rnd = prng(SEED + 1);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(rnd() * items.length)]!;
  const failures: string[] = [];
  try {
    for (let n = 0; n < 400; n++) {
      const redirect = pick(NASTY_REDIRECTS);
      const state = pick(NASTY_STATES);
      const query = `response_type=${pick(['code', 'code', 'token'])}&client_id=demo-client&scope=${pick(['crm', 'wiki', 'nope'])}&state=${state}&redirect_uri=${redirect}`;
      const kind = pick(['consent', 'approve', 'deny', 'auto']);
      const base = kind === 'auto' ? auto.url : mock.url;
      const res =
        kind === 'approve' || kind === 'deny'
          ? await fetch(`${base}/webservice/authorize/`, {
              method: 'POST',
              redirect: 'manual',
              headers: { 'content-type': 'application/x-www-form-urlencoded' },
              body: `${query}&user=${pick(['alice', 'bob'])}&decision=${kind}`,
            })
          : await fetch(`${base}/webservice/authorize/?${query}`, { redirect: 'manual' });
      await res.arrayBuffer();
      const describe = `#${n} ${kind} redirect_uri=${redirect} state=${state} → ${res.status}`;
      if (res.status >= 500) failures.push(describe);
      const location = res.headers.get('location');
      if (res.status !== 302) {
        if (location !== null) failures.push(`${describe}: Location on ${res.status}`);
        continue;
      }
      if (location === null || !/^[\x21-\x7e]+$/.test(location) || !URL.canParse(location)) {
        failures.push(`${describe}: bad Location ${JSON.stringify(location)}`);
        continue;
      }
      const decoded = new URLSearchParams(`s=${state}`).get('s');
      const echoed = new URL(location).searchParams.get('state');
      if (echoed !== decoded) failures.push(`${describe}: state came back as ${echoed}`);
    }
  } finally {
    await auto.close();
  }
  expect(failures.slice(0, 10)).toEqual([]);
  // The server is still up.
  expect(await tokenWorks(mock.url, (await mint(mock.url)).access_token)).toBe(true);
});
