// The rotated pair is stored the moment the refresh answer is whole, in the
// transport's own callback (HttpRequest.onAnswer), before the send promise resolves and before
// anything else the process has queued (a message on a slow terminal included).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHttpClient } from '../../src/http/http-client.js';
import type { HttpRequest, HttpResponse } from '../../src/http/types.js';
import { currentTokens } from '../../src/client/session.js';
import { ProfileStore } from '../../src/store/profile-store.js';
import { fileTokenStore } from '../../src/store/token-store.js';
import { scratchDir } from '../helpers/scratch.js';

const BODY = JSON.stringify({ access_token: 'A2', refresh_token: 'R2', expires_in: 3600 });
let server: Server;
let base: string;
beforeAll(async () => {
  server = createServer((req, res) => {
    if (req.url === '/chunked') {
      // No Content-Length: the answer is whole only at the end of the message.
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write(BODY.slice(0, 10));
      setImmediate(() => res.end(BODY.slice(10)));
    } else if (req.url === '/odd-expiry') {
      // An expiry the session cannot use: it says so, once the pair is safe.
      const body = BODY.replace('3600', '"soon"');
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': body.length });
      res.end(body);
    } else {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': BODY.length });
      res.end(BODY);
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

describe('the refresh answer is handled in the transport callback', () => {
  for (const path of ['/token', '/chunked']) {
    it(`node:http calls onAnswer once, before its promise resolves (${path})`, async () => {
      const events: string[] = [];
      let told: HttpResponse | undefined;
      const send = createHttpClient({ env: {} });
      const pending = send({
        method: 'POST',
        url: `${base}${path}`,
        headers: {},
        body: 'x=1',
        onAnswer: (response) => {
          events.push('answer');
          told = response;
        },
      }).then((response) => {
        events.push('resolved');
        return response;
      });
      const response = await pending;
      expect(events).toEqual(['answer', 'resolved']);
      expect(told).toBe(response);
      expect(JSON.parse(response.text)).toMatchObject({ refresh_token: 'R2' });
    });
  }

  it('writes the rotated pair before the transport resolves, and tells a person after', async () => {
    const dir = scratchDir('dasvc-answer-');
    const file = join(dir, 'config.json');
    const now = Date.now();
    const old = { accessToken: 'A', refreshToken: 'R', obtainedAt: now, expiresAt: now + 1000 };
    writeFileSync(file, JSON.stringify({ profiles: { default: { clientId: 'c', tokens: old } } }));
    const stored = () => JSON.parse(readFileSync(file, 'utf8')).profiles.default.tokens;
    const http = createHttpClient({ env: {} });
    const seen: { inCallback?: string; beforeResolve?: string; told?: string } = {};
    const send = async (request: HttpRequest): Promise<HttpResponse> => {
      const response = await http({
        ...request,
        url: `${base}/odd-expiry`,
        onAnswer: (answer) => {
          request.onAnswer?.(answer);
          seen.inCallback = stored().refreshToken;
        },
      });
      seen.beforeResolve = stored().refreshToken;
      return response;
    };
    const result = await currentTokens(
      {
        tokens: fileTokenStore(new ProfileStore(file)),
        profile: 'default',
        send,
        now: () => now,
        refreshSettings: () => ({
          client: { clientId: 'c', clientSecret: 's' },
          refreshUrl: `${base}/token`,
          placement: 'body',
          ownSession: true,
        }),
        tell: () => (seen.told = stored().refreshToken),
      },
      { force: true },
    );
    expect(seen).toEqual({ inCallback: 'R2', beforeResolve: 'R2', told: 'R2' });
    expect(result).toMatchObject({ refreshed: true, tokens: { refreshToken: 'R2' } });
    expect(stored()).toMatchObject({ accessToken: 'A2', refreshToken: 'R2' });
    expect(readdirSync(dir).sort()).toEqual(['config.json']);
  });
});
