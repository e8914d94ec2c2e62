// Every answer the CLI and the library read is bounded: past the limit (64 MiB by default) the
// exchange is cut and ends as a NetworkError (exit 4) naming the limit, over node:http and through
// a proxy (undici) alike. The servers stream lazily made data, so nothing here fills memory.
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { run as loginRun } from '../../src/cli/commands/login/run.js';
import { run as rpcRun } from '../../src/cli/commands/rpc/run.js';
import { ExitCode, NetworkError } from '../../src/errors.js';
import { createHttpClient } from '../../src/http/http-client.js';
import { RESPONSE_LIMIT } from '../../src/http/response-limit.js';
import { dasvc } from '../../src/index.js';
import { createMockApp } from '../../src/mock/index.js';
import { cleanup, failure, fakeTerminal, type FakeTerminal } from '../helpers/cli-in-process.js';
import { freshConfigDir, runCliProcess } from '../helpers/cli.js';
import { forwardProxyForFile } from '../helpers/forward-proxy.js';
import { serveApp } from '../helpers/serve-app.js';

const proxy = forwardProxyForFile();
const LIMIT = 64 * 1024;
const CHUNK = Buffer.alloc(16 * 1024, 'x');

const closers: (() => Promise<void>)[] = [];
const terminals: FakeTerminal[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
  for (const t of terminals.splice(0)) cleanup(t);
});

/** What an endless answer's server saw: bytes written, and whether the client cut it. */
interface Endless {
  url: string;
  written: number;
  cut: boolean;
}

/** Writes `CHUNK` after `CHUNK`, as fast as the client reads, until the connection ends. */
function pour(res: ServerResponse, seen: Endless): void {
  res.on('close', () => (seen.cut = !res.writableFinished));
  const more = () => {
    while (!res.destroyed) {
      seen.written += CHUNK.length;
      if (!res.write(CHUNK)) return void res.once('drain', more);
    }
  };
  more();
}

/** A server on 127.0.0.1 whose every answer is 200 and endless (optionally declaring a length). */
async function endlessServer(declared?: number): Promise<Endless> {
  const seen: Endless = { url: '', written: 0, cut: false };
  const server = createServer((req, res) => {
    req.resume();
    res.writeHead(200, {
      'content-type': 'application/json',
      ...(declared === undefined ? {} : { 'content-length': String(declared) }),
    });
    pour(res, seen);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  seen.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  closers.push(() => {
    server.closeAllConnections();
    return new Promise((resolve) => server.close(() => resolve()));
  });
  return seen;
}

async function rejection(promise: Promise<unknown>): Promise<NetworkError> {
  const error = await failure(promise);
  expect(error).toBeInstanceOf(NetworkError);
  return error as NetworkError;
}

function expectTooLarge(error: NetworkError, url: string, limitText: string): void {
  expect(error.exitCode).toBe(ExitCode.network);
  expect(error.code).toBe('response_too_large');
  expect(error.message).toBe(
    `the answer from ${url} is larger than ${limitText}, the most dasvc reads of one answer; the rest was not read`,
  );
}

describe('an answer past the limit', () => {
  it.each([
    ['directly (node:http)', () => ({})],
    ['through a proxy (undici)', () => ({ HTTP_PROXY: proxy.url })],
  ])('%s: cut where the limit is passed, a NetworkError naming it', async (how, env) => {
    const server = await endlessServer();
    const tunnels = proxy.tunnels;
    const send = createHttpClient({ env: env(), maxResponseBytes: LIMIT });
    const url = `${server.url}/webservice/json/crm`;
    const error = await rejection(send({ method: 'POST', url, headers: {}, body: '{}' }));
    expectTooLarge(error, url, '64 KiB');
    await expect.poll(() => server.cut).toBe(true);
    if (how.includes('proxy')) expect(proxy.tunnels).toBeGreaterThan(tunnels);
  });

  it.each([
    ['directly (node:http)', () => ({})],
    ['through a proxy (undici)', () => ({ HTTP_PROXY: proxy.url })],
  ])('%s: a declared Content-Length past it ends the exchange before the body', async (_, env) => {
    const server = await endlessServer(10 * 2 ** 30);
    const send = createHttpClient({ env: env(), maxResponseBytes: LIMIT });
    const url = `${server.url}/webservice/authorize`;
    expectTooLarge(await rejection(send({ method: 'POST', url, headers: {} })), url, '64 KiB');
    await expect.poll(() => server.cut).toBe(true);
  });

  it.each([
    ['directly (node:http)', () => ({})],
    ['through a proxy (undici)', () => ({ HTTP_PROXY: proxy.url })],
  ])(
    '%s: a whole answer declared past it is refused, and nothing is left to throw',
    async (_, env) => {
      // Small: the whole answer is in before the limit is checked.
      const body = 'z'.repeat(100);
      const server = createServer((req, res) => {
        req.resume();
        res.end(body);
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      closers.push(() => new Promise((resolve) => server.close(() => resolve())));
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
      const send = createHttpClient({ env: env(), maxResponseBytes: 50 });
      const error = await rejection(send({ method: 'GET', url, headers: {} }));
      expect(error.code).toBe('response_too_large');
      // An error the transport left unheard would surface as the process's own by now.
      const uncaught: unknown[] = [];
      const hear = (error: unknown) => void uncaught.push(error);
      process.on('uncaughtException', hear);
      try {
        await new Promise((resolve) => setTimeout(resolve, 100));
      } finally {
        process.off('uncaughtException', hear);
      }
      expect(uncaught).toEqual([]);
    },
  );

  it('an answer of exactly the limit is read whole', async () => {
    const body = 'y'.repeat(LIMIT);
    const server = createServer((req, res) => {
      req.resume();
      res.end(body);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    closers.push(() => new Promise((resolve) => server.close(() => resolve())));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    for (const env of [{}, { HTTP_PROXY: proxy.url }]) {
      const send = createHttpClient({ env, maxResponseBytes: LIMIT });
      expect((await send({ method: 'GET', url, headers: {} })).text).toBe(body);
    }
  });
});

describe('the library', () => {
  it('dasvc({ maxResponseBytes }) sets the limit of its transport', async () => {
    const server = await endlessServer();
    const limited = dasvc({
      baseUrl: server.url,
      token: 'a-token',
      store: 'memory',
      env: {},
      maxResponseBytes: LIMIT,
    });
    expectTooLarge(
      await rejection(limited.rpc('crm', 'contacts.list')),
      `${server.url}/webservice/json/crm`,
      '64 KiB',
    );
    // Not a number of bytes: a usage error naming the option, before any request.
    for (const maxResponseBytes of [0, -1, 1.5, Number.NaN, '1000' as unknown as number]) {
      const bad = failure(Promise.resolve().then(() => dasvc({ maxResponseBytes })));
      await expect(bad).resolves.toMatchObject({
        kind: 'usage',
        message: expect.stringMatching(/^maxResponseBytes must be/),
      });
    }
  });
});

describe('the commands that read answers', () => {
  it('dasvc rpc: exit 4 naming the limit', async () => {
    const server = await endlessServer();
    const t = fakeTerminal({ send: createHttpClient({ env: {}, maxResponseBytes: LIMIT }) });
    terminals.push(t);
    const run = rpcRun(
      {
        baseUrl: server.url,
        scope: 'crm',
        method: 'contacts.list',
        paramItems: [],
        token: 'a-token',
      },
      t.deps,
    );
    expectTooLarge(await rejection(run), `${server.url}/webservice/json/crm`, '64 KiB');
  });

  it("dasvc login: the code exchange's answer past the limit, exit 4 naming it", async () => {
    const app = createMockApp({ autoApprove: 'alice', log: () => undefined });
    closers.push(() => app.close());
    // The real mock, but its token endpoint's answer never ends.
    const served = await serveApp(async (request) => {
      const { pathname } = new URL(request.url);
      if (request.method !== 'POST' || pathname !== '/webservice/authorize') return app(request);
      const endless = new ReadableStream<Uint8Array>({ pull: (c) => c.enqueue(CHUNK) });
      return new Response(endless, { headers: { 'content-type': 'application/json' } });
    });
    closers.unshift(served.close);
    const t = fakeTerminal({
      send: createHttpClient({ env: {}, maxResponseBytes: LIMIT }),
      // The browser: the authorization (auto-approved), then the loopback redirect.
      openBrowser: async (url) => {
        const consent = await fetch(url, { redirect: 'manual' });
        await consent.arrayBuffer();
        await (await fetch(consent.headers.get('location')!)).arrayBuffer();
      },
    });
    terminals.push(t);
    const run = loginRun(
      {
        baseUrl: served.url,
        clientId: 'demo-client',
        clientSecret: 'demo-secret',
        scope: 'crm',
        browser: true,
      },
      t.deps,
    );
    expectTooLarge(await rejection(run), `${served.url}/webservice/authorize`, '64 KiB');
  });

  // The real limit, in a process of its own: 64 MiB streamed, then the cut.
  it('the default limit (64 MiB), as the CLI runs: exit 4, the message names it', async () => {
    expect(RESPONSE_LIMIT).toBe(64 * 2 ** 20);
    const server = await endlessServer();
    const result = await runCliProcess(
      ['rpc', 'crm', 'contacts.list', '--base-url', server.url, '--token', 'a-token'],
      freshConfigDir(),
    );
    expect(result.code, result.stderr).toBe(4);
    expect(result.stderr).toContain(
      `dasvc: the answer from ${server.url}/webservice/json/crm is larger than 64 MiB, the most dasvc reads of one answer`,
    );
    expect(server.written).toBeGreaterThan(RESPONSE_LIMIT);
    await expect.poll(() => server.cut).toBe(true);
  });
});
