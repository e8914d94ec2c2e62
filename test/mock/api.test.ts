import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MockServer } from '../../src/mock/index.js';
import {
  advance,
  copyFixtures,
  login,
  mint,
  rawHttp,
  revoke,
  rpc,
  startMock,
  withMock,
} from '../helpers/mock-client.js';
import { openRpcProblems } from '../helpers/mock-openrpc.js';

let mock: MockServer;
let alice: string;
let bob: string;
beforeAll(async () => {
  mock = await startMock();
  alice = (await mint(mock.url, 'alice', 'crm wiki')).access_token;
  bob = (await mint(mock.url, 'bob', 'crm')).access_token;
});
afterAll(() => mock.close());

const call = (method: string, params?: unknown, id: unknown = 1) => ({
  jsonrpc: '2.0',
  method,
  ...(params === undefined ? {} : { params }),
  id,
});

describe('API endpoint: HTTP level (SERVICE.md 4.5, RFC 6750)', () => {
  it('missing bearer → 401 with WWW-Authenticate Bearer error="invalid_token"', async () => {
    const res = await rpc(mock.url, 'crm', undefined, call('contacts.list'));
    expect(res.status).toBe(401);
    // Exactly as SPEC §5 writes it; the description is in the body only.
    expect(res.headers.get('www-authenticate')).toBe('Bearer error="invalid_token"');
    expect(await res.json()).toEqual({
      error: 'invalid_token',
      error_description: 'missing bearer access token',
    });
  });

  it('unknown, expired or revoked token → 401 invalid_token', async () => {
    const unknown = await rpc(mock.url, 'crm', 'nope', call('contacts.list'));
    expect(unknown.status).toBe(401);
    expect(unknown.headers.get('www-authenticate')).toBe('Bearer error="invalid_token"');
    expect(await unknown.json()).toMatchObject({ error: 'invalid_token' });
    const t = await mint(mock.url);
    await revoke(mock.url, t.access_token, 'access_token');
    expect((await rpc(mock.url, 'crm', t.access_token, call('contacts.list'))).status).toBe(401);
    await withMock({}, async (clockMock) => {
      const e = await mint(clockMock.url);
      await advance(clockMock.url, '1h');
      const res = await rpc(clockMock.url, 'crm', e.access_token, call('contacts.list'));
      expect(res.status).toBe(401);
    });
  });

  it('a scope the token was not granted → 403 insufficient_scope', async () => {
    const res = await rpc(mock.url, 'wiki', bob, call('pages.list'));
    expect(res.status).toBe(403);
    expect(res.headers.get('www-authenticate')).toBe('Bearer error="insufficient_scope"');
    expect(await res.json()).toMatchObject({ error: 'insufficient_scope' });
    const crmOnly = (await login(mock.url, { scope: 'crm' })).access_token;
    expect((await rpc(mock.url, 'wiki', crmOnly, call('pages.list'))).status).toBe(403);
  });

  it('unknown instance → 404 JSON', async () => {
    const res = await rpc(mock.url, 'nope', alice, call('x'));
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ error: 'not_found' });
  });

  it('non-POST → 405 with Allow: POST', async () => {
    const res = await fetch(`${mock.url}/webservice/json/crm`, {
      headers: { authorization: `Bearer ${alice}` },
    });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('POST');
    expect(await res.json()).toMatchObject({ error: 'method_not_allowed' });
  });

  it('a body over 1 MiB → 413', async () => {
    const big = JSON.stringify(call('contacts.list', { pad: 'x'.repeat(1024 * 1024) }));
    const res = await rpc(mock.url, 'crm', alice, big);
    expect(res.status).toBe(413);
    expect(await res.json()).toMatchObject({ error: 'invalid_request' });
    expect((await rpc(mock.url, 'crm', alice, call('contacts.list'))).status).toBe(200);
  });

  it('a declared Content-Length over 1 MiB → 413 at once, before any of the body', async () => {
    const { host } = new URL(mock.url);
    // Not a byte of the body is sent: only the declared length can answer this request.
    const res = await rawHttp(
      mock.url,
      `POST /webservice/json/crm HTTP/1.1\r\nHost: ${host}\r\nAuthorization: Bearer ${alice}\r\nContent-Type: application/json\r\nContent-Length: ${1024 * 1024 + 1}\r\n\r\n`,
    );
    expect(res.status).toBe(413);
    expect(JSON.parse(res.body)).toMatchObject({ error: 'invalid_request' });
  });

  it('a chunked body over 1 MiB (no Content-Length) → 413', async () => {
    const chunk = new TextEncoder().encode('x'.repeat(256 * 1024));
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent++ < 6) controller.enqueue(chunk);
        else controller.close();
      },
    });
    const res = await fetch(`${mock.url}/webservice/json/crm`, {
      method: 'POST',
      body,
      duplex: 'half',
      headers: { authorization: `Bearer ${alice}` },
    } as RequestInit);
    expect(res.status).toBe(413);
  });
});

describe('JSON-RPC 2.0', () => {
  const post = async (body: unknown, token = alice, instance = 'crm') => {
    const res = await rpc(mock.url, instance, token, body);
    return {
      status: res.status,
      body:
        res.status === 204
          ? undefined
          : ((await res.json()) as Record<string, unknown> & unknown[]),
    };
  };

  it('per-user data: alice and bob see only their own contacts', async () => {
    const a = await post(call('contacts.list'));
    expect(a).toMatchObject({ status: 200, body: { jsonrpc: '2.0', id: 1 } });
    expect((a.body!.result as { id: number }[]).map((c) => c.id)).toEqual([1, 2]);
    const b = await post(call('contacts.list', undefined, 'abc'), bob);
    expect(b.body!.id).toBe('abc');
    expect((b.body!.result as { id: number }[]).map((c) => c.id)).toEqual([3, 4]);
  });

  it("contacts.get: own contact by name or position; someone else's is an error without data", async () => {
    expect((await post(call('contacts.get', { id: 1 }))).body!.result).toMatchObject({
      id: 1,
      name: 'Ada Lovelace',
    });
    expect((await post(call('contacts.get', [2]))).body!.result).toMatchObject({ id: 2 });
    const foreign = await post(call('contacts.get', { id: 1 }), bob);
    expect(foreign.status).toBe(200);
    expect(foreign.body!.result).toBeUndefined();
    expect(foreign.body!.error).toMatchObject({
      code: expect.any(Number),
      message: expect.any(String),
    });
    expect(JSON.stringify(foreign.body)).not.toContain('Ada');
  });

  it('-32700 parse error, id null', async () => {
    expect((await post('{"jsonrpc": "2.0", "method"')).body).toEqual({
      jsonrpc: '2.0',
      error: { code: -32700, message: 'Parse error' },
      id: null,
    });
    expect((await post('')).body!.error).toMatchObject({ code: -32700 });
  });

  // Regression: bytes that are not UTF-8 became U+FFFD, and the id echoed back was not the one
  // sent (RFC 8259 §8.1: JSON text is UTF-8).
  it('-32700 for a body that is not UTF-8; a BOM is no JSON either', async () => {
    const send = (bytes: Uint8Array) =>
      fetch(`${mock.url}/webservice/json/crm`, {
        method: 'POST',
        headers: { authorization: `Bearer ${alice}`, 'content-type': 'application/json' },
        body: new Uint8Array(bytes),
      }).then((res) => res.json() as Promise<{ error?: { code: number } }>);
    const text = '{"jsonrpc":"2.0","id":"X","method":"contacts.list"}';
    const latin1 = Buffer.from(text.replace('X', '\u00ff\u00fe'), 'latin1');
    expect((await send(latin1)).error).toMatchObject({ code: -32700 });
    const bom = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(text)]);
    expect((await send(bom)).error).toMatchObject({ code: -32700 });
    expect(await send(Buffer.from(text.replace('X', 'é')))).toMatchObject({ id: 'é' });
  });

  it.each([
    ['no jsonrpc', { method: 'contacts.list', id: 1 }],
    ['jsonrpc 1.0', { jsonrpc: '1.0', method: 'contacts.list', id: 1 }],
    ['method not a string', { jsonrpc: '2.0', method: 5, id: 1 }],
    ['params a string', { jsonrpc: '2.0', method: 'contacts.list', params: 'x', id: 1 }],
    ['id an object', { jsonrpc: '2.0', method: 'contacts.list', id: {} }],
    ['a number', 42],
  ])('-32600 invalid request: %s', async (_name, body) => {
    const res = await post(body);
    expect(res.status).toBe(200);
    expect(res.body!.error).toMatchObject({ code: -32600, message: 'Invalid Request' });
  });

  it('-32601 method not found', async () => {
    expect((await post(call('contacts.delete'))).body!.error).toMatchObject({ code: -32601 });
    expect((await post(call('pages.list'))).body!.error).toMatchObject({ code: -32601 });
    // "" is a string, so a well-formed request: it names no method there is.
    expect((await post(call(''))).body!.error).toMatchObject({ code: -32601 });
  });

  it.each([
    ['missing required id', {}],
    ['id a string', { id: '1' }],
    ['id not an integer', { id: 1.5 }],
    ['id below minimum', { id: 0 }],
    ['unknown param', { id: 1, extra: true }],
    ['too many positional params', [1, 2]],
    ['empty positional params', []],
  ])('-32602 invalid params: %s', async (_name, params) => {
    const res = await post(call('contacts.get', params));
    expect(res.body!.error).toMatchObject({ code: -32602, message: 'Invalid params' });
  });

  it('contacts.list takes no params', async () => {
    expect((await post(call('contacts.list', { x: 1 }))).body!.error).toMatchObject({
      code: -32602,
    });
    expect((await post(call('contacts.list', {}))).body!.result).toHaveLength(2);
    expect((await post(call('contacts.list', []))).body!.result).toHaveLength(2);
  });

  it('a notification gets 204 and no body', async () => {
    const res = await rpc(mock.url, 'crm', alice, { jsonrpc: '2.0', method: 'contacts.list' });
    expect(res.status).toBe(204);
    expect(await res.text()).toBe('');
    // Regression: node:http was handed Content-Length: 0 (RFC 9110 §8.6: never on a 204).
    expect(res.headers.has('content-length')).toBe(false);
    expect((await rpc(mock.url, 'crm', alice, { jsonrpc: '2.0', method: 'no.such' })).status).toBe(
      204,
    );
  });

  it('batch: responses for the calls, none for notifications, errors per element', async () => {
    const res = await post([
      call('contacts.get', { id: 1 }, 1),
      { jsonrpc: '2.0', method: 'contacts.list' },
      call('no.such', undefined, 2),
      1,
      call('contacts.get', {}, 3),
    ]);
    expect(res.status).toBe(200);
    const body = res.body as unknown as {
      id: unknown;
      result?: unknown;
      error?: { code: number };
    }[];
    expect(body).toHaveLength(4);
    expect(body[0]).toMatchObject({ id: 1, result: { id: 1 } });
    expect(body[1]).toMatchObject({ id: 2, error: { code: -32601 } });
    expect(body[2]).toMatchObject({ id: null, error: { code: -32600 } });
    expect(body[3]).toMatchObject({ id: 3, error: { code: -32602 } });
  });

  it('empty batch → one -32600 response (not an array)', async () => {
    const res = await post([]);
    expect(res.body).toMatchObject({ jsonrpc: '2.0', error: { code: -32600 }, id: null });
    expect(Array.isArray(res.body)).toBe(false);
  });

  it('all-notification batch → 204', async () => {
    const res = await rpc(mock.url, 'crm', alice, [
      { jsonrpc: '2.0', method: 'contacts.list' },
      { jsonrpc: '2.0', method: 'contacts.get', params: { id: 1 } },
    ]);
    expect(res.status).toBe(204);
    expect(res.headers.has('content-length')).toBe(false);
  });

  it('rpc.discover returns an OpenRPC document of the instance, itself included', async () => {
    const res = await post(call('rpc.discover'), alice, 'wiki');
    const doc = res.body!.result as {
      openrpc: string;
      methods: { name: string; params: unknown[] }[];
    };
    expect(doc.openrpc).toMatch(/^1\.2\./);
    expect(doc.methods.map((m) => m.name)).toEqual(['pages.list', 'rpc.discover']);
    const crm = (await post(call('rpc.discover'))).body!.result as {
      methods: { name: string; params: { name: string; required: boolean }[] }[];
    };
    expect(crm.methods.map((m) => m.name)).toEqual([
      'contacts.list',
      'contacts.get',
      'rpc.discover',
    ]);
    expect(crm.methods[1]!.params[0]).toMatchObject({
      name: 'id',
      required: true,
      schema: { type: 'integer' },
    });
    expect(JSON.stringify(crm)).not.toContain('byUser');
    expect(JSON.stringify(crm)).not.toContain('handler');
  });

  it('rpc.discover of the default fixtures is a valid OpenRPC 1.2.6 document', async () => {
    for (const instance of ['crm', 'wiki']) {
      const doc = (await post(call('rpc.discover'), alice, instance)).body!.result;
      expect(openRpcProblems(doc)).toEqual([]);
    }
  });

  it('echoes string, number and null ids', async () => {
    expect((await post(call('contacts.list', undefined, 'x-1'))).body!.id).toBe('x-1');
    expect((await post(call('contacts.list', undefined, 12345678901))).body!.id).toBe(12345678901);
    expect((await post(call('contacts.list', undefined, null))).body!.id).toBeNull();
  });
});

describe('computed methods and internal errors', () => {
  let custom: MockServer;
  let token: string;
  beforeAll(async () => {
    const dir = copyFixtures();
    writeFileSync(
      join(dir, 'instances', 'lab.json'),
      JSON.stringify({
        methods: [
          { name: 'boom', handler: 'lab.js#boom' },
          { name: 'fail', handler: 'lab.js#fail' },
          {
            name: 'whoami',
            handler: 'lab.js#whoami',
            params: [{ name: 'greet', schema: { type: 'string' } }],
          },
          { name: 'static', value: { ok: true } },
          {
            name: 'loose',
            value: 1,
            params: [
              { name: 'q', required: true, note: 'not an OpenRPC field' },
              { name: 'opt', summary: 'no schema either', deprecated: true },
            ],
            result: { name: 'r', examples: [], 'x-ok': 1 },
          },
        ],
      }),
    );
    writeFileSync(
      join(dir, 'instances', 'lab.js'),
      `export function boom() { throw new Error('kaput'); }
export function fail() { throw { code: 4001, message: 'Nope', data: { why: 'test' } }; }
export async function whoami({ user, instance, params }) { return { user, instance, greet: params.greet ?? null }; }`,
    );
    writeFileSync(
      join(dir, 'users.json'),
      JSON.stringify({
        alice: { name: 'Alice', instances: ['crm', 'wiki', 'lab'] },
        bob: { instances: ['crm'] },
      }),
    );
    custom = await startMock({ fixtures: dir });
    token = (await mint(custom.url, 'alice', 'lab')).access_token;
  });
  afterAll(() => custom.close());

  const post = async (body: unknown) =>
    (await (await rpc(custom.url, 'lab', token, body)).json()) as Record<string, unknown>;

  it('a handler that throws → -32603 internal error, the mock keeps running', async () => {
    expect((await post(call('boom'))).error).toMatchObject({
      code: -32603,
      message: 'Internal error',
    });
    expect((await post(call('static'))).result).toEqual({ ok: true });
  });

  it('a handler that throws {code, message, data} → that JSON-RPC error', async () => {
    expect((await post(call('fail'))).error).toEqual({
      code: 4001,
      message: 'Nope',
      data: { why: 'test' },
    });
  });

  it('rpc.discover stays valid OpenRPC with schema-less params and extra fixture keys', async () => {
    const doc = (await post(call('rpc.discover'))).result as {
      methods: { name: string; params: unknown[]; result: unknown }[];
    };
    expect(openRpcProblems(doc)).toEqual([]);
    const loose = doc.methods.find((m) => m.name === 'loose')!;
    expect(loose.params).toEqual([
      { name: 'q', required: true, schema: {} },
      { name: 'opt', summary: 'no schema either', required: false, deprecated: true, schema: {} },
    ]);
    expect(loose.result).toEqual({ name: 'r', schema: {} });
    // The checker itself catches what the old documents got wrong.
    expect(
      openRpcProblems({
        openrpc: '1.2.6',
        info: { title: 't', version: '1' },
        methods: [{ name: 'm', params: [{ name: 'q', required: true, note: 1 }], result: {} }],
      }),
    ).toEqual([
      'methods[0].params[0]: unknown field "note"',
      'methods[0].params[0]: "schema" is required',
      'methods[0].result: "name" must be a non-empty string',
      'methods[0].result: "schema" is required',
    ]);
  });

  it('a handler receives params, user and instance', async () => {
    expect((await post(call('whoami', ['hi']))).result).toEqual({
      user: 'alice',
      instance: 'lab',
      greet: 'hi',
    });
  });
});
