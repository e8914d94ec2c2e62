// SPEC §6 --proxy, the outgoing side: proxy variables as the CLI honours them (SPEC §1), the
// DASVC_HTTP_TIMEOUT limit (504), an upstream under a path, and a client's `Expect: 100-continue`
// (answered by node:http, not forwarded). createProxy gets its environment as an argument, so
// nothing here touches process.env.
import { createServer, request, type IncomingHttpHeaders, type Server } from 'node:http';
import { createServer as createNetServer, type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProxy } from '../../../src/mock/proxy/proxy.js';
import type { MockRequest, MockResponse } from '../../../src/mock/core/types.js';
import { startMockServer, type MockServer } from '../../../src/mock/index.js';
import { forwardProxyForFile } from '../../helpers/forward-proxy.js';

let upstream: Server;
let upstreamUrl: string;
let seen: { url: string; headers: IncomingHttpHeaders; body: string }[] = [];
/** A forward proxy that tunnels CONNECT (as undici's ProxyAgent asks) and counts the tunnels. */
const forward = forwardProxyForFile();
/** Accepts requests and never answers. */
let silent: Server;
let silentUrl: string;

const listen = async (server: Server) => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
};

beforeAll(async () => {
  upstream = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      seen.push({ url: req.url!, headers: req.headers, body });
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end(`got ${req.url}`);
    });
  });
  upstreamUrl = await listen(upstream);
  silent = createServer(() => undefined);
  silentUrl = await listen(silent);
});

afterAll(async () => {
  for (const server of [upstream, silent]) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

/** A GET as the core hands it to the proxy. */
function get(path: string): MockRequest {
  return {
    method: 'GET',
    path,
    query: '',
    origin: 'http://mock.test',
    header: () => undefined,
    text: () => Promise.resolve(''),
    bytes: () => Promise.resolve(new Uint8Array()),
    rawHeaders: () => ['Accept', 'text/plain'],
  };
}

async function bodyText(response: MockResponse): Promise<string> {
  const chunks: Uint8Array[] = [];
  for await (const chunk of response.stream ?? []) chunks.push(chunk);
  return chunks.length > 0 ? Buffer.concat(chunks).toString() : response.body;
}

describe('the proxy’s outgoing connections', () => {
  it('go through HTTP_PROXY when it applies, and direct when NO_PROXY names the upstream', async () => {
    const before = forward.tunnels;
    const proxied = await createProxy(upstreamUrl, [], { HTTP_PROXY: forward.url });
    try {
      const response = await proxied.forward(get('/webservice/json/a'), '/webservice/json/a');
      expect(response.status).toBe(200);
      expect(await bodyText(response)).toBe('got /webservice/json/a');
      expect(forward.tunnels).toBe(before + 1);
    } finally {
      await proxied.close();
    }
    const bypass = await createProxy(upstreamUrl, [], {
      HTTP_PROXY: forward.url,
      NO_PROXY: '127.0.0.1',
    });
    try {
      const response = await bypass.forward(get('/webservice/json/b'), '/webservice/json/b');
      expect(await bodyText(response)).toBe('got /webservice/json/b');
      expect(forward.tunnels).toBe(before + 1);
    } finally {
      await bypass.close();
    }
  });

  // Regression: undici hands a 103 Early Hints to the handler too; it was taken for the answer.
  it('pass on the final answer after an informational 103, not the 103', async () => {
    const early = createNetServer((socket) => {
      socket.once('data', () => {
        socket.write('HTTP/1.1 103 Early Hints\r\nLink: </style.css>; rel=preload\r\n\r\n');
        socket.end(
          'HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 5\r\nConnection: close\r\n\r\nhello',
        );
      });
    });
    await new Promise<void>((resolve) => early.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(early.address() as AddressInfo).port}`;
    const proxy = await createProxy(url, [], {});
    try {
      const response = await proxy.forward(get('/webservice/json/x'), '/webservice/json/x');
      expect(response.status).toBe(200);
      expect(await bodyText(response)).toBe('hello');
    } finally {
      await proxy.close();
      await new Promise((resolve) => early.close(resolve));
    }
  });

  it('give up after DASVC_HTTP_TIMEOUT (read as the CLI reads it): 504 naming the upstream', async () => {
    await expect(createProxy(silentUrl, [], { DASVC_HTTP_TIMEOUT: 'soon' })).rejects.toThrow(
      /DASVC_HTTP_TIMEOUT/,
    );
    const proxy = await createProxy(silentUrl, [], { DASVC_HTTP_TIMEOUT: '200ms' });
    try {
      const response = await proxy.forward(get('/webservice/json/x'), '/webservice/json/x');
      expect(response.status).toBe(504);
      expect(JSON.parse(response.body)).toEqual({
        error: 'temporarily_unavailable',
        error_description: `the upstream ${silentUrl} did not answer in time (UND_ERR_HEADERS_TIMEOUT)`,
        upstream: silentUrl,
      });
    } finally {
      await proxy.close();
    }
  });
});

describe('dasvc mock --proxy in front of an upstream under a path', () => {
  let mock: MockServer;
  beforeAll(async () => {
    mock = await startMockServer({ port: 0, proxy: `${upstreamUrl}/das/` });
  });
  afterAll(async () => {
    await mock?.close();
  });

  it('puts the upstream’s path before every forwarded path, the query kept', async () => {
    seen = [];
    const res = await fetch(`${mock.url}/webservice/authorize/?client_id=c&x=%20`);
    expect(await res.text()).toBe('got /das/webservice/authorize/?client_id=c&x=%20');
    expect(seen.map((s) => s.url)).toEqual(['/das/webservice/authorize/?client_id=c&x=%20']);
  });

  it('answers a client’s Expect: 100-continue itself and forwards the body without it', async () => {
    seen = [];
    const body = JSON.stringify({ jsonrpc: '2.0', method: 'm', params: { pad: 'x'.repeat(2000) } });
    const answer = await new Promise<{ status: number; text: string }>((resolve, reject) => {
      const req = request(`${mock.url}/webservice/json/crm`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', expect: '100-continue' },
        agent: false,
      });
      // As curl does for a body past 1 KiB: the body follows the 100 Continue.
      req.on('continue', () => req.end(body));
      req.on('response', (res) => {
        let text = '';
        res.on('data', (c: Buffer) => (text += c.toString()));
        res.on('end', () => resolve({ status: res.statusCode!, text }));
      });
      req.on('error', reject);
    });
    expect(answer).toEqual({ status: 200, text: 'got /das/webservice/json/crm' });
    expect(seen).toHaveLength(1);
    expect(seen[0]!.body).toBe(body);
    expect(seen[0]!.headers.expect).toBeUndefined();
  });
});
