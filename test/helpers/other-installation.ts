import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll } from 'vitest';
import { createMockApp, type MockApp, type MockOptions } from '../../src/mock/index.js';

/** One request as it reached the other installation: method, URL, headers and body, raw. */
export interface HeardRequest {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

/** What credentials the other installation heard, by kind (`token`: revoke's parameter). */
export interface Heard {
  authorization: string[];
  clientSecret: string[];
  refreshToken: string[];
  token: string[];
}

/**
 * Another installation for the file's tests: the real mock app (createMockApp) served on
 * 127.0.0.1 behind a listener that keeps every request exactly as it came, before the app sees it.
 */
export interface OtherInstallation {
  readonly url: string;
  readonly requests: HeardRequest[];
  /**
   * Every Authorization header, client_secret, refresh_token and token it received (query or
   * body), in the requests after the first `since`.
   */
  heard(since?: number): Heard;
  /** Whether any request carried one of `values` anywhere (URL, headers, body). */
  carried(values: string[]): boolean;
}

function paramsOf(request: HeardRequest): URLSearchParams[] {
  const query = new URL(request.url, 'http://x').searchParams;
  const form = /x-www-form-urlencoded/i.test(request.headers['content-type'] ?? '')
    ? [new URLSearchParams(request.body)]
    : [];
  return [query, ...form];
}

/** Starts it (approving as alice) before the file's tests and closes it after them. */
export function otherInstallationForFile(
  options: () => MockOptions = () => ({}),
): OtherInstallation {
  let app: MockApp | undefined;
  const requests: HeardRequest[] = [];
  let url = '';
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const heard: HeardRequest = {
        method: req.method ?? 'GET',
        url: req.url ?? '/',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      requests.push(heard);
      const headers = new Headers();
      for (const [name, value] of Object.entries(req.headers))
        if (typeof value === 'string') headers.set(name, value);
      const hasBody = heard.method !== 'GET' && heard.method !== 'HEAD';
      void app!(
        new Request(`${url}${heard.url}`, {
          method: heard.method,
          headers,
          redirect: 'manual',
          ...(hasBody ? { body: heard.body } : {}),
        }),
      ).then(async (response) => {
        const answer: Record<string, string> = {};
        response.headers.forEach((value, name) => (answer[name] = value));
        res.writeHead(response.status, answer).end(await response.text());
      });
    });
  });
  beforeAll(async () => {
    app = createMockApp({ log: () => undefined, autoApprove: 'alice', ...options() });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    await app?.close();
  });
  return {
    get url() {
      if (url === '') throw new Error('the other installation is not started yet');
      return url;
    },
    requests,
    heard(since = 0) {
      const heard: Heard = { authorization: [], clientSecret: [], refreshToken: [], token: [] };
      for (const request of requests.slice(since)) {
        const authorization = request.headers.authorization;
        if (authorization !== undefined) heard.authorization.push(authorization);
        for (const params of paramsOf(request)) {
          heard.clientSecret.push(...params.getAll('client_secret'));
          heard.refreshToken.push(...params.getAll('refresh_token'));
          heard.token.push(...params.getAll('token'));
        }
      }
      return heard;
    },
    carried(values) {
      return requests.some((request) => {
        const text = `${request.url}\n${JSON.stringify(request.headers)}\n${request.body}`;
        return values.some((value) => text.includes(value));
      });
    },
  };
}
