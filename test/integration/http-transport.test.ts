import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { createHttpClient } from '../../src/http/http-client.js';
import { proxyFor } from '../../src/http/proxy.js';
import { NetworkError } from '../../src/errors.js';
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

describe('transport choice (SPEC §1: node:http direct, undici EnvHttpProxyAgent behind a proxy)', () => {
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

describe('proxyFor mirrors undici EnvHttpProxyAgent', () => {
  const at = (url: string, env: NodeJS.ProcessEnv) => proxyFor(new URL(url), env);
  it('picks the variable by scheme, lower case first, HTTPS falling back to HTTP', () => {
    expect(at('http://a.test/', {})).toBeUndefined();
    expect(at('http://a.test/', { HTTP_PROXY: 'http://p:1' })).toBe('http://p:1');
    expect(at('http://a.test/', { HTTP_PROXY: 'http://P:1', http_proxy: 'http://p:2' })).toBe(
      'http://p:2',
    );
    expect(at('https://a.test/', { HTTP_PROXY: 'http://p:1' })).toBe('http://p:1');
    expect(at('https://a.test/', { HTTP_PROXY: 'http://p:1', HTTPS_PROXY: 'http://s:1' })).toBe(
      'http://s:1',
    );
    expect(at('http://a.test/', { HTTPS_PROXY: 'http://s:1' })).toBeUndefined();
  });
  it('honours NO_PROXY: *, hosts, subdomains, leading dots and ports', () => {
    const env = { HTTP_PROXY: 'http://p:1' };
    expect(at('http://a.test/', { ...env, NO_PROXY: '*' })).toBeUndefined();
    expect(at('http://x.a.test/', { ...env, NO_PROXY: 'b.test, .a.test' })).toBeUndefined();
    expect(at('http://A.test:8080/', { ...env, no_proxy: 'a.test:8080' })).toBeUndefined();
    expect(at('http://a.test:8081/', { ...env, NO_PROXY: 'a.test:8080' })).toBe('http://p:1');
    expect(at('http://ba.test/', { ...env, NO_PROXY: 'a.test' })).toBe('http://p:1');
  });
});
