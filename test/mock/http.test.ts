import { describe, expect, it } from 'vitest';
import { serveNode } from '../../src/mock/adapters/node-server.js';
import type { MockResponse } from '../../src/mock/core/types.js';
import { authorizeQuery, form, rawHttp, startMockForFile } from '../helpers/mock-client.js';

const mock = startMockForFile();

describe('node:http adapter', () => {
  it('routes an absolute-form request target by its path (RFC 9112 §3.2.2)', async () => {
    const clock = await rawHttp(
      mock.url,
      'GET http://127.0.0.1/_mock/clock HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n',
    );
    expect(clock.status).toBe(200);
    expect(JSON.parse(clock.body)).toMatchObject({ offsetSeconds: 0 });
    const token = await rawHttp(
      mock.url,
      'POST http://127.0.0.1/webservice/authorize?client_id=demo-client&client_secret=wrong HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\nConnection: close\r\n\r\n',
    );
    expect(token.status).toBe(401);
    expect(JSON.parse(token.body)).toMatchObject({ error: 'invalid_client' });
  });

  it('a mock on loopback refuses control requests naming another Host (DNS rebinding)', async () => {
    const port = new URL(mock.url).port;
    const mintAs = (host: string) =>
      rawHttp(
        mock.url,
        `POST /_mock/tokens HTTP/1.1\r\nHost: ${host}\r\nOrigin: http://${host}\r\nContent-Type: application/json\r\nContent-Length: 30\r\nConnection: close\r\n\r\n{"user":"alice","scope":"crm"}`,
      );
    const rebound = await mintAs(`evil.example:${port}`);
    expect(rebound.status).toBe(403);
    expect(JSON.parse(rebound.body)).toMatchObject({ error: 'forbidden' });
    expect(rebound.body).not.toContain('access_token');
    const journal = await rawHttp(
      mock.url,
      `GET /_mock/journal HTTP/1.1\r\nHost: evil.example:${port}\r\nConnection: close\r\n\r\n`,
    );
    expect(journal.status).toBe(403);
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `LOCALHOST.:${port}`, '127.1']) {
      expect((await mintAs(host)).status, host).toBe(200);
    }
  });

  it('the consent form posts to a path-relative action, whatever the Host header says', async () => {
    const page = await rawHttp(
      mock.url,
      `GET /webservice/authorize/?${form(authorizeQuery())} HTTP/1.1\r\nHost: evil.example\r\nConnection: close\r\n\r\n`,
    );
    expect(page.status).toBe(200);
    expect(page.body).toContain('<form method="post" action="/webservice/authorize/">');
    expect(page.body).not.toContain('evil.example');
  });

  it('an answer node:http refuses to write becomes a JSON 500, and the server lives on', async () => {
    const answers: MockResponse[] = [
      { status: 302, headers: { location: 'http://x/\u20ac' }, body: '' },
      { status: 200, headers: { 'x-bad': 'a\r\nSet-Cookie: x=1' }, body: '{}' },
    ];
    let calls = 0;
    const served = await serveNode(
      (request) => {
        calls += 1;
        if (request.path === '/reject') return Promise.reject(new Error('boom'));
        const answer = answers.shift();
        return Promise.resolve(answer ?? { status: 200, headers: {}, body: 'ok' });
      },
      '127.0.0.1',
      0,
    );
    const url = `http://127.0.0.1:${served.port}`;
    try {
      for (const path of ['/a', '/b', '/reject']) {
        const res = await fetch(`${url}${path}`, { redirect: 'manual' });
        expect(res.status).toBe(500);
        expect(res.headers.get('location')).toBeNull();
        expect(res.headers.get('set-cookie')).toBeNull();
        expect(await res.json()).toEqual({
          error: 'server_error',
          error_description: 'internal error in the mock',
        });
      }
      expect(await (await fetch(`${url}/fine`)).text()).toBe('ok');
      expect(calls).toBe(4);
    } finally {
      await served.close();
    }
  });
});
