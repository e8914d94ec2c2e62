// SPEC §6 --proxy against a broken upstream: resets, 500s, non-JSON bodies, 10 MB bodies, a body
// cut half-way, an unreachable port; headers forwarded less hop-by-hop ones and Host. The answer
// always passes unchanged or becomes a 502 naming the upstream; the recording stays readable.
import { createHash } from 'node:crypto';
import {
  createServer,
  request,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type Server,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMockApp, startMockServer, type MockServer } from '../../../src/mock/index.js';
import { loadFixtures } from '../../../src/mock/fixture-format/load-fixtures.js';

const BIG = Buffer.alloc(10 * 1024 * 1024, 'x');
const BIG_HASH = createHash('sha256').update(BIG).digest('hex');

let upstream: Server;
let upstreamUrl: string;
let seen: { url: string; headers: IncomingHttpHeaders; body: string; bytes: Buffer }[] = [];
/** Endless answers whose connection closed before they were written whole; a wait for the next. */
let endlessCut = 0;
let onEndlessCut: (() => void) | undefined;
let dir: string;
let plain: MockServer;
let recording: MockServer;

beforeAll(async () => {
  upstream = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const bytes = Buffer.concat(chunks);
      seen.push({ url: req.url!, headers: req.headers, body: bytes.toString(), bytes });
      const path = req.url!.split('?')[0]!;
      if (path.endsWith('/reset')) return req.socket.destroy();
      if (path.endsWith('/e500')) {
        res.writeHead(500, 'Upstream Says No', {
          'content-type': 'text/plain',
          'x-upstream': 'yes',
        });
        return res.end('upstream broke');
      }
      if (path.endsWith('/latin1')) {
        // A legal latin-1 byte in the reason phrase, which undici reads as UTF-8 (U+FFFD).
        res.writeHead(200, 'Caf\u00e9', { 'content-type': 'application/json' });
        return res.end('{"ok":true}');
      }
      if (path.endsWith('/html')) {
        res.writeHead(200, { 'content-type': 'text/html' });
        return res.end('<html>not json</html>');
      }
      if (path.endsWith('/big')) {
        res.writeHead(200, { 'content-type': 'application/json' });
        return res.end(BIG);
      }
      if (path.endsWith('/endless')) {
        // 1 GiB in 64 KiB chunks, each written when the last has drained: far more than loopback
        // buffers hold, so only a reader that keeps reading gets to the end.
        const chunk = Buffer.alloc(64 * 1024, 'x');
        let left = 16 * 1024;
        res.on('close', () => {
          if (left === 0) return;
          endlessCut += 1;
          onEndlessCut?.();
        });
        res.writeHead(200, { 'content-type': 'application/octet-stream' });
        const more = () => {
          while (left > 0 && !res.destroyed) {
            left -= 1;
            if (left === 0) return res.end(chunk);
            if (!res.write(chunk)) return res.once('drain', more);
          }
        };
        return more();
      }
      if (path.endsWith('/cut')) {
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': '1000000' });
        res.write('{"jsonrpc":"2.0",');
        return setImmediate(() => req.socket.destroy());
      }
      res.writeHead(302, [
        ['location', 'http://127.0.0.1:9/callback?code=c0de-secret&state=s1'],
        ['set-cookie', 'a=1; HttpOnly'],
        ['set-cookie', 'b=2'],
        ['connection', 'keep-alive'],
      ]);
      res.end();
    });
  });
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  upstreamUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
  dir = mkdtempSync(join(tmpdir(), 'dasvc-record-'));
  plain = await startMockServer({ port: 0, proxy: upstreamUrl });
  recording = await startMockServer({ port: 0, proxy: `${upstreamUrl}/`, record: dir });
});

afterAll(async () => {
  await plain?.close();
  await recording?.close();
  upstream.closeAllConnections();
  await new Promise((resolve) => upstream.close(resolve));
  rmSync(dir, { recursive: true, force: true });
});

const post = (base: string, path: string, body = '{"jsonrpc":"2.0","method":"m","id":1}') =>
  fetch(`${base}${path}`, {
    method: 'POST',
    headers: { authorization: 'Bearer abc-token-1', 'content-type': 'application/json' },
    body,
  });

describe.each([
  ['proxy', () => plain.url, false],
  ['proxy + record', () => recording.url, true],
])('%s and a broken upstream', (_name, base, buffered) => {
  it('a reset connection is a 502 whose JSON body names the upstream', async () => {
    const res = await post(base(), '/webservice/json/reset');
    expect(res.status).toBe(502);
    expect(await res.json()).toMatchObject({
      error: 'temporarily_unavailable',
      error_description: expect.stringContaining(upstreamUrl),
      upstream: upstreamUrl,
    });
  });

  it('a 500 with a text body passes unchanged', async () => {
    const res = await post(base(), '/webservice/json/e500');
    expect(res.status).toBe(500);
    // The reason phrase as the upstream sent it, not node's standard one.
    expect(res.statusText).toBe('Upstream Says No');
    expect(res.headers.get('x-upstream')).toBe('yes');
    expect(await res.text()).toBe('upstream broke');
  });

  it('a reason phrase that cannot be written again gives way to the standard one, the answer passes', async () => {
    const res = await post(base(), '/webservice/json/latin1');
    expect(res.status).toBe(200);
    expect(res.statusText).toBe('OK');
    expect(await res.json()).toEqual({ ok: true });
  });

  it('a non-JSON 200 passes unchanged', async () => {
    const res = await post(base(), '/webservice/json/html');
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('<html>not json</html>');
  });

  it('a 10 MB body passes whole', async () => {
    const res = await post(base(), '/webservice/json/big');
    const bytes = Buffer.from(await res.arrayBuffer());
    expect(bytes.length).toBe(BIG.length);
    expect(createHash('sha256').update(bytes).digest('hex')).toBe(BIG_HASH);
  });

  it('a body cut half-way cuts the answer (a 502 when buffered); the proxy keeps serving', async () => {
    const res = await post(base(), '/webservice/json/cut');
    if (buffered) expect(res.status).toBe(502);
    else await expect(res.text()).rejects.toThrow();
    expect((await post(base(), '/webservice/json/e500')).status).toBe(500);
  });

  it('forwards headers less hop-by-hop ones and Host; Location and cookies come back untouched', async () => {
    seen = [];
    // node:http, since fetch refuses to send a Connection header.
    const res = await new Promise<IncomingMessage>((resolve, reject) => {
      const req = request(`${base()}/webservice/authorize/?client_id=c&x=1`, {
        headers: { 'x-app': 'mine', connection: 'keep-alive, x-hop', 'x-hop': 'drop me' },
        agent: false,
      });
      req.on('response', resolve).on('error', reject).end();
    });
    res.resume();
    expect(res.statusCode).toBe(302);
    expect(res.headers.location).toBe('http://127.0.0.1:9/callback?code=c0de-secret&state=s1');
    expect(res.headers['set-cookie']).toEqual(['a=1; HttpOnly', 'b=2']);
    expect(seen).toHaveLength(1);
    const forwarded = seen[0]!;
    expect(forwarded.url).toBe('/webservice/authorize/?client_id=c&x=1');
    expect(forwarded.headers['x-app']).toBe('mine');
    expect(forwarded.headers['x-hop']).toBeUndefined();
    expect(forwarded.headers.host).toBe(new URL(upstreamUrl).host);
  });

  it('a request body that is not UTF-8 reaches the upstream byte for byte', async () => {
    seen = [];
    // Latin-1 and a lone continuation byte: a UTF-8 round trip would turn each into U+FFFD.
    const bytes = Buffer.from([0x7b, 0xe9, 0x80, 0x00, 0xff, 0x7d]);
    const res = await fetch(`${base()}/webservice/json/e500`, {
      method: 'POST',
      headers: { 'content-type': 'application/octet-stream' },
      body: bytes,
    });
    expect(res.status).toBe(500);
    expect(seen).toHaveLength(1);
    expect(seen[0]!.bytes).toEqual(bytes);
    expect(seen[0]!.headers['content-length']).toBe(String(bytes.length));
  });

  it('/_mock/ stays local, /_mock too', async () => {
    seen = [];
    expect((await fetch(`${base()}/_mock/journal`)).status).toBe(200);
    const bare = await fetch(`${base()}/_mock`, { redirect: 'manual' });
    expect(bare.status).toBe(302);
    expect(bare.headers.get('location')).toBe('/_mock/');
    expect(seen).toEqual([]);
  });

  // Regression: a GET's body was dropped (SPEC §6 forwards method, path, query, body, headers).
  it('a GET that carries a body forwards it; one without sends none', async () => {
    seen = [];
    const get = (body?: string) =>
      new Promise<number>((resolve, reject) => {
        const req = request(
          `${base()}/webservice/authorize/revoke`,
          {
            method: 'GET',
            // node:http sends a GET's body only with a length given.
            headers: body === undefined ? {} : { 'content-length': Buffer.byteLength(body) },
          },
          (res) => {
            res.resume();
            res.on('end', () => resolve(res.statusCode!));
          },
        );
        req.on('error', reject);
        req.end(body);
      });
    await get('token=abc');
    await get();
    expect(seen.map((s) => s.body)).toEqual(['token=abc', '']);
    expect(seen[0]!.headers['content-length']).toBe('9');
    expect(seen[1]!.headers['content-length']).toBeUndefined();
  });
});

describe('a client that goes away mid-body', () => {
  it('ends the streamed upstream exchange too; the proxy keeps serving', async () => {
    const before = endlessCut;
    const cut = new Promise<void>((resolve) => (onEndlessCut = resolve));
    await new Promise<void>((resolve, reject) => {
      const req = request(`${plain.url}/webservice/json/endless`, {
        method: 'POST',
        agent: false,
      });
      req.on('error', () => resolve());
      req.on('response', (res) => {
        res.once('data', () => {
          req.destroy();
          resolve();
        });
        res.on('error', () => undefined);
      });
      req.on('timeout', reject);
      req.end('{}');
    });
    await cut;
    expect(endlessCut).toBe(before + 1);
    expect((await post(plain.url, '/webservice/json/e500')).status).toBe(500);
  });
});

describe('createMockApp({ proxy }) (the library, no socket of its own)', () => {
  it('streams a large answer, keeps repeated headers, and names an upstream that failed', async () => {
    const app = createMockApp({ proxy: upstreamUrl });
    try {
      const big = await app(
        new Request('http://app.test/webservice/json/big', { method: 'POST', body: '{}' }),
      );
      const bytes = Buffer.from(await big.arrayBuffer());
      expect(createHash('sha256').update(bytes).digest('hex')).toBe(BIG_HASH);
      const redirect = await app(new Request('http://app.test/webservice/authorize/?client_id=c'));
      expect(redirect.status).toBe(302);
      expect(redirect.headers.getSetCookie()).toEqual(['a=1; HttpOnly', 'b=2']);
      const reset = await app(
        new Request('http://app.test/webservice/json/reset', { method: 'POST', body: '{}' }),
      );
      expect(reset.status).toBe(502);
      expect(((await reset.json()) as { upstream: string }).upstream).toBe(upstreamUrl);
    } finally {
      await app.close();
    }
  });
});

describe('an unreachable upstream', () => {
  it('answers 502 naming it', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(closed.address() as AddressInfo).port}`;
    await new Promise((resolve) => closed.close(resolve));
    const mock = await startMockServer({ port: 0, proxy: url });
    try {
      const res = await post(mock.url, '/webservice/json/crm');
      expect(res.status).toBe(502);
      const body = (await res.json()) as Record<string, string>;
      expect(body.error_description).toBe(`the upstream ${url} is unreachable (ECONNREFUSED)`);
    } finally {
      await mock.close();
    }
  });
});

describe('the recording after all that', () => {
  it('is a readable fixtures folder without the secrets that passed', async () => {
    await recording.close();
    const fixtures = loadFixtures(dir);
    expect([...fixtures.clients.keys()]).toEqual(['c']);
    // The 500 with a text body is an HTTP error alone: it tells no instance e500 is there.
    expect([...fixtures.instances.keys()]).toEqual([]);
    const text = ['clients.txt', 'users.json']
      .map((f) => readFileSync(join(dir, f), 'utf8'))
      .join();
    for (const secret of ['c0de-secret', 'abc-token-1']) expect(text).not.toContain(secret);
  });
});
