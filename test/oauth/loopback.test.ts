import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { runLoginFlow } from '../../src/oauth/login-flow.js';
import { startLoopback, type Loopback } from '../../src/oauth/loopback.js';

/** Sends raw bytes to 127.0.0.1:port and resolves with the whole answer once the server closes. */
function raw(port: number, request: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let answer = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (answer += chunk));
    socket.on('end', () => resolve(answer));
    socket.on('error', reject);
    socket.write(request);
  });
}

const statusOf = (answer: string) => Number(/^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1]);

describe("the login's loopback listener under hostile requests", () => {
  let loopback: Loopback | undefined;
  afterEach(async () => {
    await loopback?.close();
    loopback = undefined;
  });

  /** A listener that records each callback query it hands to the login. */
  async function listen(): Promise<{ port: number; seen: string[] }> {
    const seen: string[] = [];
    loopback = await startLoopback(0, async (query) => {
      seen.push(query.toString());
      return { status: 200, html: 'ok' };
    });
    return { port: loopback.port, seen };
  }

  it('answers 400 to a request line it cannot parse, and keeps waiting for the real redirect', async () => {
    const { port, seen } = await listen();
    for (const target of ['http://%zz/callback', 'http://[/callback?code=x', '//%/callback']) {
      const answer = await raw(
        port,
        `GET ${target} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nConnection: close\r\n\r\n`,
      );
      expect(statusOf(answer), target).toBe(400);
    }
    expect(seen).toEqual([]);
    const good = await fetch(`http://127.0.0.1:${port}/callback?code=c&state=s`);
    expect(good.status).toBe(200);
    expect(seen).toEqual(['code=c&state=s']);
  });

  it('refuses a Host other than 127.0.0.1:<port> or localhost:<port> (DNS rebinding) without touching the login', async () => {
    const { port, seen } = await listen();
    for (const host of [
      `evil.example:${port}`,
      'evil.example',
      `127.0.0.1:${port + 1}`,
      '127.0.0.1',
      `127.0.0.1:${port}.evil.example`,
    ]) {
      const answer = await raw(
        port,
        `GET /callback?code=c&state=s HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`,
      );
      expect(statusOf(answer), host).toBe(400);
    }
    const noHost = await raw(port, 'GET /callback?code=c&state=s HTTP/1.0\r\n\r\n');
    expect(statusOf(noHost)).toBe(400);
    expect(seen).toEqual([]);
    for (const host of [`localhost:${port}`, `LOCALHOST:${port}`, `127.0.0.1:${port}`]) {
      const answer = await raw(
        port,
        `GET /callback?code=c&state=s HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`,
      );
      expect(statusOf(answer), host).toBe(200);
    }
    expect(seen).toHaveLength(3);
  });
});

describe('the login flow tells its witness what the browser did (dasvc check evidence)', () => {
  // Regression: a callback without code or error (a stray visit) counted as the redirect, so a
  // check whose browser got nowhere waited --timeout three times; the address lost its port.
  it('the authorization URL, then only a redirect that carries a code or an error', async () => {
    const seen: ({ authorizationUrl: string } | { redirect: string })[] = [];
    const flow = runLoginFlow(
      {
        authorizeUrl: 'http://das.test/webservice/authorize/',
        tokenUrl: 'http://das.test/webservice/authorize',
        client: { clientId: 'c', clientSecret: 's' },
        scope: 'crm',
        placement: 'query',
        port: 0,
        timeoutMs: 2000,
      },
      {
        // The authorization request's answer is a sign-in page; no code is ever exchanged.
        send: async (request) => {
          if (request.method !== 'GET') throw new Error('no exchange expected');
          return {
            status: 200,
            headers: { 'content-type': 'text/html' },
            text: '<h1>Sign in</h1>',
          };
        },
        now: Date.now,
        tell: () => undefined,
        witness: (step) => seen.push(step),
        openBrowser: async (url) => {
          const redirect = new URL(url).searchParams.get('redirect_uri')!;
          await fetch(redirect);
          await fetch(`${redirect}?state=forged&code=x`);
        },
      },
    );
    await expect(flow).rejects.toMatchObject({ code: 'state_mismatch' });
    expect(seen).toHaveLength(2);
    expect(seen[0]).toEqual({ authorizationUrl: expect.stringMatching(/^http:\/\/das\.test\//) });
    expect(seen[1]).toEqual({
      redirect: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/callback\?state=forged&code=x$/),
    });
  });
});
