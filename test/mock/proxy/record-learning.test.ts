// SPEC §6: what `--record` infers learns only from accepted calls. Calls the installation refused
// (-32600, -32601, -32602, an HTTP error with or without a JSON-RPC answer) are kept as examples
// but change no params schema, so
// `--validate` against the folder still catches the regression it exists for, and replay still
// answers the refused calls as they were answered.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockServer, type MockServer } from '../../../src/mock/index.js';
import { replayOf } from '../../helpers/replay.js';
import { scratchDir } from '../../helpers/scratch.js';

let upstream: MockServer;
/** Answers every call with HTTP 503 and a JSON-RPC error, as some gateways do. */
let gateway: Server;
let gatewayUrl: string;
let dir: string;
let token: string;

async function rpc(base: string, scope: string, method: string, params?: unknown, bearer = token) {
  const res = await fetch(`${base}/webservice/json/${scope}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${bearer}`, 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', method, id: 7, ...(params ? { params } : {}) }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

function method(name: string): Record<string, unknown> {
  const crm = JSON.parse(readFileSync(join(dir, 'instances', 'crm.openrpc.json'), 'utf8'));
  return crm.methods.find((m: { name: string }) => m.name === name);
}

beforeAll(async () => {
  upstream = await startMockServer({ port: 0 });
  const minted = await fetch(`${upstream.url}/_mock/tokens`, {
    method: 'POST',
    body: JSON.stringify({ user: 'alice', scope: 'crm', client_id: 'demo-client' }),
  });
  token = ((await minted.json()) as { access_token: string }).access_token;
  gateway = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(503, { 'content-type': 'application/json' });
      res.end('{"jsonrpc":"2.0","id":7,"error":{"code":-32004,"message":"Contact not found"}}');
    });
  });
  await new Promise<void>((resolve) => gateway.listen(0, '127.0.0.1', resolve));
  gatewayUrl = `http://127.0.0.1:${(gateway.address() as AddressInfo).port}`;
  dir = join(scratchDir('dasvc-learn-'), 'rec');
  const proxy = await startMockServer({ port: 0, proxy: upstream.url, record: dir });
  try {
    expect((await rpc(proxy.url, 'crm', 'contacts.get', { id: 1 })).body.result).toMatchObject({
      id: 1,
    });
    expect((await rpc(proxy.url, 'crm', 'contacts.get', { id: 2 })).body.result).toMatchObject({
      id: 2,
    });
    // An application error: the installation took the params and answered for itself.
    expect((await rpc(proxy.url, 'crm', 'contacts.get', { id: 3 })).body.error).toMatchObject({
      code: -32004,
    });
    // Refused: a string id, the same by position, no id at all, an unknown method.
    for (const params of [{ id: 'one' }, ['one'], {}]) {
      expect((await rpc(proxy.url, 'crm', 'contacts.get', params)).body.error).toMatchObject({
        code: -32602,
      });
    }
    expect((await rpc(proxy.url, 'crm', 'contacts.gte', { id: 1 })).body.error).toMatchObject({
      code: -32601,
    });
    // HTTP errors with no JSON-RPC answer: a refused token, for new params and for params the
    // installation answered already; an instance it does not have.
    for (const id of ['bad-token', 1])
      expect((await rpc(proxy.url, 'crm', 'contacts.get', { id }, 'no-such-token')).status).toBe(
        401,
      );
    expect((await rpc(proxy.url, 'nosuch', 'contacts.get', { id: 1 })).status).toBe(404);
    // A refused token before any call of an instance: no document says it is there.
    expect((await rpc(proxy.url, 'wiki', 'pages.list', {}, 'no-such-token')).status).toBe(401);
  } finally {
    await proxy.close();
  }
  // The same folder, recorded into from an upstream that answers with HTTP errors.
  const second = await startMockServer({ port: 0, proxy: gatewayUrl, record: dir });
  try {
    const answer = await rpc(second.url, 'crm', 'contacts.get', { id: 'gateway', full: true });
    expect(answer.status).toBe(503);
  } finally {
    await second.close();
  }
});

afterAll(async () => {
  await upstream.close();
  gateway.closeAllConnections();
  await new Promise((resolve) => gateway.close(resolve));
});

describe('--record learns only from accepted calls', () => {
  it('infers the params schema from accepted calls; refused ones widen nothing', () => {
    const get = method('contacts.get');
    expect(get.paramStructure).toBe('by-name');
    expect(get.params).toEqual([
      { name: 'id', required: true, schema: { type: 'integer' } },
      // A name only a refused call had: the installation accepted no value of it.
      { name: 'full', required: false, schema: false },
    ]);
    // Every distinct call is an example: 1, 2, 3 (an application error), the refusals (the
    // one by position written by the declared name, the same params as the one by name), the
    // refused token's HTTP error for new params (not over the answer to id 1), the gateway's
    // HTTP error (both marked with their status).
    const examples = get.examples as Record<string, unknown>[];
    expect(examples).toHaveLength(7);
    expect(examples.filter((e) => 'x-error' in e)).toHaveLength(5);
    expect(examples.find((e) => JSON.stringify(e.params).includes('bad-token'))).toMatchObject({
      'x-http-status': 401,
      'x-error': {
        code: -32000,
        message: 'HTTP 401: invalid_token (unknown, expired or revoked access token)',
        data: { error: 'invalid_token' },
      },
    });
    expect(readdirSync(join(dir, 'instances'))).toEqual(['crm.openrpc.json']);
    expect(examples.at(-1)).toMatchObject({
      'x-http-status': 503,
      'x-error': { code: -32004 },
    });
    // An unknown method is kept with its refusal; its param has no accepted value either.
    expect(method('contacts.gte')).toMatchObject({
      params: [{ name: 'id', required: false, schema: false }],
      examples: [{ 'x-error': { code: -32601 } }],
    });
  });

  it('replays the refused calls as they were answered, and -32001 for others', async () => {
    const replay = await replayOf(dir, 'crm');
    try {
      const call = async (params: unknown) =>
        (await replay.call('crm', 'contacts.get', params)).error?.code;
      expect(await call({ id: 'one' })).toBe(-32602);
      expect(await call(['one'])).toBe(-32602);
      expect(await call({})).toBe(-32602);
      expect(await call({ id: 'gateway', full: true })).toBe(-32004);
      expect(await call({ id: 'bad-token' })).toBe(-32000);
      expect(await call({ id: 'two' })).toBe(-32001);
      expect(await call({ id: 1 })).toBeUndefined();
    } finally {
      await replay.close();
    }
  });

  it('--validate against the folder still catches a string id, and passes an integer one', async () => {
    const lines: string[] = [];
    const validating = await startMockServer({
      port: 0,
      proxy: upstream.url,
      fixtures: dir,
      validate: true,
      warn: (line) => lines.push(line),
    });
    try {
      await rpc(validating.url, 'crm', 'contacts.get', { id: 1 });
      // A request that is no valid JSON-RPC request is the client's mistake, no contract's.
      const invalid = await fetch(`${validating.url}/webservice/json/crm`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          jsonrpc: '1.0',
          method: 'contacts.get',
          params: { id: 'x' },
          id: 8,
        }),
      });
      expect(((await invalid.json()) as { error: { code: number } }).error.code).toBe(-32600);
      expect(lines).toEqual([]);
      await rpc(validating.url, 'crm', 'contacts.get', { id: 'one' });
      await rpc(validating.url, 'crm', 'contacts.get', {});
      expect(lines).toHaveLength(2);
      expect(lines[0]).toMatch(/^contract: crm contacts\.get: params: /);
      expect(lines[1]).toMatch(/^contract: crm contacts\.get: params: .*id/);
    } finally {
      await validating.close();
    }
  });
});
