import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it, onTestFinished } from 'vitest';
import { createHttpClient } from '../../src/http/http-client.js';
import { proxyUrls } from '../../src/http/proxy.js';
import { NetworkError, UsageError } from '../../src/errors.js';
import { forwardProxyForFile } from '../helpers/forward-proxy.js';
import { startMockForFile } from '../helpers/mock-client.js';

const mock = startMockForFile();

/** A forward proxy on 127.0.0.1 that tunnels CONNECT (as undici's ProxyAgent asks) and counts. */
const forward = forwardProxyForFile();

const discover = (url: string) => ({
  method: 'POST' as const,
  url: `${url}/_mock/tokens`,
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ user: 'alice', scope: 'crm' }),
});

/** A server on 127.0.0.1 that answers 204 and keeps the headers of the last request. */
/**
 * Ports a browser's fetch refuses to connect to (the fetch standard's bad ports), which an
 * installation may well use: the first of them free here, or undefined.
 */
async function freeBadPort(): Promise<number | undefined> {
  for (const port of [6000, 6665, 6666, 6667, 6668, 6669, 10080, 5060, 4045]) {
    const server = createServer();
    const listening = await new Promise<boolean>((resolve) => {
      server.once('error', () => resolve(false));
      server.listen(port, '127.0.0.1', () => resolve(true));
    });
    await new Promise((resolve) => server.close(resolve));
    if (listening) return port;
  }
  return undefined;
}

async function headerServer(port = 0): Promise<{
  url: string;
  seen: () => IncomingHttpHeaders;
  by: () => 'node:http' | 'undici';
}> {
  let last: IncomingHttpHeaders = {};
  let raw: string[] = [];
  const server = createServer((req, res) => {
    last = req.headers;
    raw = req.rawHeaders;
    req.resume();
    res.writeHead(204).end();
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  onTestFinished(() => {
    server.closeAllConnections();
    return new Promise((resolve) => server.close(() => resolve()));
  });
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen: () => last,
    // Which client wrote the request: node:http writes `Host` after the headers it was given,
    // undici writes `host` first.
    by: () => (raw[0] === 'host' ? 'undici' : 'node:http'),
  };
}

describe('transport choice (SPEC §1: node:http without a proxy variable, else undici EnvHttpProxyAgent)', () => {
  it('goes direct without a proxy variable, and answers like fetch', async () => {
    const before = forward.tunnels;
    const send = createHttpClient({ env: {} });
    const res = await send(discover(mock.url));
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(JSON.parse(res.text)).toHaveProperty('access_token');
    expect(forward.tunnels).toBe(before);
  });

  it('goes through HTTP_PROXY when it applies, and direct when NO_PROXY names the host', async () => {
    const before = forward.tunnels;
    const proxied = await createHttpClient({ env: { HTTP_PROXY: forward.url } })(
      discover(mock.url),
    );
    expect(proxied.status).toBe(200);
    expect(forward.tunnels).toBe(before + 1);
    const bypass = createHttpClient({ env: { HTTP_PROXY: forward.url, NO_PROXY: '127.0.0.1' } });
    expect((await bypass(discover(mock.url))).status).toBe(200);
    expect(forward.tunnels).toBe(before + 1);
  });

  it('with a proxy variable set, undici decides for every request, a NO_PROXY one included', async () => {
    const server = await headerServer();
    const request = { method: 'GET' as const, url: `${server.url}/x`, headers: {} };
    await createHttpClient({ env: {} })(request);
    expect(server.by()).toBe('node:http');
    const before = forward.tunnels;
    const bypassed = { HTTP_PROXY: forward.url, NO_PROXY: '.example.test, 127.0.0.1' };
    expect((await createHttpClient({ env: bypassed })(request)).status).toBe(204);
    expect(server.by()).toBe('undici');
    expect(forward.tunnels).toBe(before);
    // An HTTPS proxy alone does not apply to an http URL: undici goes direct.
    await createHttpClient({ env: { https_proxy: forward.url } })(request);
    expect(server.by()).toBe('undici');
    expect(forward.tunnels).toBe(before);
    // Both send the same request: no compression asked for, `accept: */*`.
    expect(server.seen()['accept-encoding']).toBeUndefined();
    expect(server.seen().accept).toBe('*/*');
  });

  it('reaches a port fetch would refuse (6000, 10080) through a proxy as it does directly', async () => {
    const port = await freeBadPort();
    expect(port, 'one of the ports is free on 127.0.0.1').toBeDefined();
    const server = await headerServer(port);
    const request = { method: 'GET' as const, url: `${server.url}/x`, headers: {} };
    expect((await createHttpClient({ env: {} })(request)).status).toBe(204);
    const before = forward.tunnels;
    expect((await createHttpClient({ env: { HTTP_PROXY: forward.url } })(request)).status).toBe(
      204,
    );
    expect(forward.tunnels).toBe(before + 1);
  });

  it('both transports read an answer alike: header lists joined, no byte-order mark', async () => {
    const server = createServer((req, res) => {
      req.resume();
      res.setHeader('x-list', ['a', 'b']);
      res.end('\ufeff{"ok":true}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    onTestFinished(() => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve(undefined)));
    });
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/x`;
    const request = { method: 'GET' as const, url, headers: {} };
    for (const env of [{}, { HTTP_PROXY: forward.url }]) {
      const answer = await createHttpClient({ env })(request);
      expect({ text: answer.text, list: answer.headers['x-list'] }, JSON.stringify(env)).toEqual({
        text: '{"ok":true}',
        list: 'a, b',
      });
    }
  });

  it('refuses a proxy variable that is no URL, naming it and not its value', async () => {
    const send = createHttpClient({ env: { https_proxy: 'user:secret@proxy host' } });
    const error = await send(discover(mock.url)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UsageError);
    expect((error as UsageError).message).toBe('https_proxy is not a URL');
    expect((error as UsageError).exitCode).toBe(2);
  });

  it('blames a refusal on the proxy only when the proxy refused (not a host NO_PROXY sends direct)', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(closed.address() as AddressInfo).port}`;
    await new Promise((resolve) => closed.close(resolve));
    const env = { HTTP_PROXY: forward.url, NO_PROXY: '127.0.0.1' };
    const error = await createHttpClient({ env })(discover(url)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NetworkError);
    expect((error as NetworkError).message).toBe(
      `cannot connect to ${url}/_mock/tokens: connection refused (nothing listens at ${new URL(url).host})`,
    );
  });

  it('maps a refused connection to one sentence on both transports (naming the proxy behind one)', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(closed.address() as AddressInfo).port}`;
    await new Promise((resolve) => closed.close(resolve));
    const request = discover(url);
    const direct = await createHttpClient({ env: {} })(request).catch((e: unknown) => e);
    expect(direct).toBeInstanceOf(NetworkError);
    const sentence = `cannot connect to ${url}/_mock/tokens: connection refused (nothing listens at ${new URL(url).host})`;
    expect((direct as NetworkError).message).toBe(sentence);
    const viaProxy = await createHttpClient({ env: { HTTP_PROXY: url } })(request).catch(
      (e: unknown) => e,
    );
    expect(viaProxy).toBeInstanceOf(NetworkError);
    // Behind a proxy, only the proxy is ever connected to: the refusal is its own.
    expect((viaProxy as NetworkError).message).toBe(
      sentence.replace('cannot connect to ', `cannot connect to the proxy ${url} for `),
    );
  });

  it("names first the proxy a URL's scheme uses, as undici chooses it", () => {
    const both = { httpProxy: 'http://a:1', httpsProxy: 'http://b:2', noProxy: '' };
    expect(proxyUrls(both, 'https://x/')).toEqual(['http://b:2', 'http://a:1']);
    expect(proxyUrls(both, 'http://x/')).toEqual(['http://a:1', 'http://b:2']);
    expect(proxyUrls({ ...both, httpsProxy: '' }, 'https://x/')).toEqual(['http://a:1']);
    expect(proxyUrls(undefined, 'https://x/')).toEqual([]);
  });

  it('tells a proxy that refuses the tunnel (407, 502) by its status, exit 4, never a crash', async () => {
    let status = 407;
    const refusing = createServer();
    refusing.on('connect', (_req, socket) => {
      socket.end(`HTTP/1.1 ${status} Refused\r\nProxy-Authenticate: Basic realm="x"\r\n\r\n`);
    });
    await new Promise<void>((resolve) => refusing.listen(0, '127.0.0.1', resolve));
    onTestFinished(() => new Promise((resolve) => refusing.close(() => resolve(undefined))));
    const proxy = `http://127.0.0.1:${(refusing.address() as AddressInfo).port}`;
    const send = createHttpClient({ env: { HTTP_PROXY: proxy } });
    for (status of [407, 502]) {
      const error = await send(discover(mock.url)).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(NetworkError);
      expect(error).toMatchObject({
        exitCode: 4,
        code: 'proxy_refused',
        message: `the proxy ${proxy} refused to connect to ${mock.url}/_mock/tokens: it answered HTTP ${status}${status === 407 ? ' (Proxy Authentication Required)' : ''}`,
        facts: { proxied: true, proxy, ...(status === 407 ? { proxyAuth: true } : {}) },
      });
    }
  });

  it('times out with the same sentence, naming the URL without its query', async () => {
    const silent = createServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(silent.address() as AddressInfo).port}`;
    try {
      const send = createHttpClient({ env: {}, timeoutMs: 200 });
      const error = await send({ ...discover(url), url: `${url}/secret?code=x` }).catch(
        (e: unknown) => e,
      );
      expect((error as NetworkError).message).toBe(
        `no answer from ${url}/secret within 0.2 s (timed out)`,
      );
    } finally {
      silent.closeAllConnections();
      await new Promise((resolve) => silent.close(resolve));
    }
  });

  it('interrupts an exchange under way when the signal aborts', async () => {
    const silent = createServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(silent.address() as AddressInfo).port}`;
    try {
      const controller = new AbortController();
      silent.once('request', () => controller.abort());
      const send = createHttpClient({ env: {}, signal: controller.signal });
      const error = await send(discover(url)).catch((e: unknown) => e);
      expect((error as Error).name).toBe('InterruptedError');
    } finally {
      silent.closeAllConnections();
      await new Promise((resolve) => silent.close(resolve));
    }
  });
});
