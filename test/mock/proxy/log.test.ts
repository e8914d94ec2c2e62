// SPEC §8 under --proxy: a proxying mock's log lines and journal keep rpc=, client= and each
// refusal's code and reason, as far as the proxy can know them; never user= (the upstream's login
// is its own). Two real mocks on 127.0.0.1: the upstream, and the proxy in front of it.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { JournalEntry } from '../../../src/mock/core/journal.js';
import { startMockServer, type MockServer } from '../../../src/mock/index.js';
import {
  basic,
  DEMO,
  exchange,
  get,
  getCode,
  login,
  postForm,
  rpc,
} from '../../helpers/mock-client.js';

let upstream: MockServer;
let proxy: MockServer;
let lines: string[] = [];

beforeAll(async () => {
  upstream = await startMockServer({ port: 0, quiet: true });
  proxy = await startMockServer({ port: 0, proxy: upstream.url, log: (line) => lines.push(line) });
});

afterAll(async () => {
  await proxy?.close();
  await upstream?.close();
});

beforeEach(() => {
  lines = [];
});

/** The proxy's log line of its one request to `path` since the test began. */
function lineOf(path: string): string {
  const found = lines.filter((line) => line.split(' ')[2]!.split('?')[0] === path);
  expect(found, lines.join('\n')).toHaveLength(1);
  return found[0]!;
}

async function journal(): Promise<JournalEntry[]> {
  const answer = await fetch(`${proxy.url}/_mock/journal`);
  return ((await answer.json()) as { entries: JournalEntry[] }).entries;
}

describe('dasvc mock --proxy: what the log and the journal tell', () => {
  it('an API call names its methods and the client its token was issued to, no user', async () => {
    const tokens = await login(proxy.url);
    lines = [];
    const call = { jsonrpc: '2.0', method: 'contacts.list', id: 1 };
    const answer = await rpc(proxy.url, 'crm', tokens.access_token, call);
    expect(answer.status).toBe(200);
    const line = lineOf('/webservice/json/crm');
    expect(line).toMatch(/ 200 \d+\.\dms rpc=contacts\.list client=demo-client$/);
    expect(line).not.toContain('user=');
    const entry = (await journal()).at(-1)!;
    expect(entry).toMatchObject({ status: 200, rpc: ['contacts.list'], client: 'demo-client' });
    expect(entry.user).toBeUndefined();
    expect(entry.code).toBeUndefined();
    expect(entry.body).toBe(JSON.stringify(call));
  });

  it('a JSON-RPC error answered with HTTP 200 carries its code, a batch its first and a count', async () => {
    const tokens = await login(proxy.url);
    lines = [];
    await (
      await rpc(proxy.url, 'crm', tokens.access_token, {
        jsonrpc: '2.0',
        method: 'contacts.nope',
        id: 1,
      })
    ).arrayBuffer();
    expect(lineOf('/webservice/json/crm')).toMatch(
      / 200 \d+\.\dms rpc=contacts\.nope client=demo-client -32601: /,
    );
    lines = [];
    const batch = [
      { jsonrpc: '2.0', method: 'contacts.list', id: 1 },
      { jsonrpc: '2.0', method: 'contacts.get', params: { id: 'x' }, id: 2 },
      { jsonrpc: '2.0', method: 'contacts.nope', id: 3 },
    ];
    expect((await rpc(proxy.url, 'crm', tokens.access_token, batch)).status).toBe(200);
    const line = lineOf('/webservice/json/crm');
    expect(line).toContain(' rpc=contacts.list,contacts.get,contacts.nope client=demo-client ');
    expect(line).toMatch(/ -32602: .*\(\+1 more: -32601\)$/);
    expect((await journal()).at(-1)).toMatchObject({ status: 200, code: -32602 });
  });

  it('OAuth requests name their client (query, form or Basic) and the upstream’s reason', async () => {
    const code = await getCode(proxy.url);
    await (await exchange(proxy.url, code)).arrayBuffer();
    lines = [];
    // The code again: the upstream refuses it, and says why in its error_description.
    await (await exchange(proxy.url, code)).arrayBuffer();
    const replay = lineOf('/webservice/authorize');
    expect(replay).toMatch(/ 400 \d+\.\dms client=demo-client invalid_grant: /);
    expect(replay).not.toContain(code);
    lines = [];
    const wrong = await postForm(
      `${proxy.url}/webservice/authorize/refresh_token`,
      { grant_type: 'refresh_token', refresh_token: 'r' },
      { authorization: basic(DEMO.id, 'not-the-secret') },
    );
    expect(wrong.status).toBe(401);
    expect(lineOf('/webservice/authorize/refresh_token')).toMatch(
      / 401 \d+\.\dms client=demo-client invalid_client: client authentication failed$/,
    );
    const entry = (await journal()).at(-1)!;
    expect(entry).toMatchObject({ client: 'demo-client', code: 'invalid_client' });
    // The form body is in the journal with its secrets masked.
    expect(entry.body).toBe('grant_type=refresh_token&refresh_token=[redacted]');
  });

  it('an authorization refused by redirect shows the error of its Location', async () => {
    const query = new URLSearchParams({
      response_type: 'code',
      client_id: DEMO.id,
      redirect_uri: 'http://127.0.0.1:9/callback',
      scope: 'crm nowhere',
      state: 's',
    });
    const answer = await get(`${proxy.url}/webservice/authorize/?${query}`);
    expect(answer.status).toBe(302);
    expect(lineOf('/webservice/authorize/')).toMatch(
      / 302 \d+\.\dms client=demo-client invalid_scope: unknown instance "nowhere" in scope$/,
    );
  });
});

describe('dasvc mock --proxy in front of an upstream that echoes secrets', () => {
  let echo: Server;
  let echoing: MockServer;

  beforeAll(async () => {
    // Refuses every call and repeats what it was sent in its reasons, as careless servers do.
    echo = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const sent = `${req.url} ${req.headers.authorization ?? ''} ${Buffer.concat(chunks)}`;
        const api = req.url!.startsWith('/webservice/json/');
        const answer = JSON.stringify(
          api
            ? { jsonrpc: '2.0', id: 1, error: { code: -32000, message: `bad call ${sent}` } }
            : { error: 'invalid_request', error_description: `cannot use ${sent}` },
        );
        // Compressed when asked (fetch asks): the proxy reads the reason through the encoding.
        const gzip = /gzip/.test(req.headers['accept-encoding'] ?? '');
        res.writeHead(api ? 200 : 400, {
          'content-type': 'application/json',
          ...(gzip ? { 'content-encoding': 'gzip' } : {}),
        });
        res.end(gzip ? gzipSync(answer) : answer);
      });
    });
    await new Promise<void>((resolve) => echo.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(echo.address() as AddressInfo).port}`;
    echoing = await startMockServer({ port: 0, proxy: url, log: (line) => lines.push(line) });
  });

  afterAll(async () => {
    await echoing?.close();
    await new Promise((resolve) => echo?.close(resolve));
  });

  it('masks what the request carried in the reasons it logs', async () => {
    const secret = 'the-client-secret-42';
    const token = 'bearer-token-value-42';
    await (
      await postForm(`${echoing.url}/webservice/authorize?code=code-value-42`, {
        client_id: 'c1',
        client_secret: secret,
        grant_type: 'authorization_code',
      })
    ).arrayBuffer();
    await (
      await rpc(echoing.url, 'crm', token, { jsonrpc: '2.0', method: 'm', id: 1 })
    ).arrayBuffer();
    const log = lines.join('\n');
    expect(log).toContain('client=c1 invalid_request: cannot use');
    expect(log).toContain('rpc=m -32000: bad call');
    for (const value of [secret, token, 'code-value-42']) expect(log).not.toContain(value);
    const reasons = JSON.stringify(
      ((await (await fetch(`${echoing.url}/_mock/journal`)).json()) as { entries: unknown[] })
        .entries,
    );
    for (const value of [secret, token, 'code-value-42']) expect(reasons).not.toContain(value);
  });
});
