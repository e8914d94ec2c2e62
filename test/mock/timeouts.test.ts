import { EventEmitter, once } from 'node:events';
import { connect } from 'node:net';
import { beforeAll, describe, expect, it } from 'vitest';
import { UsageError } from '../../src/errors.js';
import { startMockServer, type JournalEntry } from '../../src/mock/index.js';
import { rawHttp, startMock, startMockForFile, withMock } from '../helpers/mock-client.js';
import { runDasvc, startMockInProcess } from '../helpers/mock-process.js';

// Short timeouts: the test waits for the 408, never for the 10 s / 30 s defaults. Each handled
// request is kept as the mock hands it on, so that a test waits for the one it expects.
const seen: JournalEntry[] = [];
const arrivals = new EventEmitter();
const mock = startMockForFile({
  headersTimeout: '300ms',
  requestTimeout: '700ms',
  onRequest: (entry) => {
    seen.push(entry);
    arrivals.emit('entry');
  },
});

type Match = (entry: JournalEntry) => boolean;

/** Resolves once the mock has handled a request that `match`es (a hang is the test's timeout). */
async function handled(match: Match): Promise<void> {
  while (!seen.some(match)) await once(arrivals, 'entry');
}

/** The mock's journal entry that `match`es, read once the mock has handled that request. */
async function journaled(match: Match): Promise<JournalEntry | undefined> {
  await handled(match);
  const journal = (await (await fetch(`${mock.url}/_mock/journal`)).json()) as {
    entries: JournalEntry[];
  };
  return journal.entries.find(match);
}

// The mock shares this process's event loop: the first fetch() loads and compiles undici (100 ms
// and more on a loaded machine) between the connect and the request head, which a 300 ms head
// timeout then took for a stalled client (a 408, once in CI). Loaded before, with no socket.
beforeAll(async () => {
  await (await fetch('data:,warm')).text();
});

describe('the mock under stalled and odd requests, and its two timeouts', () => {
  it('regression: CONNECT gets a 405 JSON answer like other methods, and the server lives on', async () => {
    const answer = await rawHttp(
      mock.url,
      'CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n',
    );
    expect(answer.status).toBe(405);
    expect(answer.headers['content-type']).toMatch(/^application\/json/);
    expect(answer.headers.allow).toBe('GET, POST');
    expect(JSON.parse(answer.body)).toEqual({
      error: 'method_not_allowed',
      error_description: 'allowed methods: GET, POST',
    });
    const clock = await fetch(`${mock.url}/_mock/clock`);
    expect(clock.status).toBe(200);
  });

  it('regression: a request head that stalls gets 408 (JSON) after --headers-timeout', async () => {
    const answer = await rawHttp(mock.url, 'GET /_mock/clock HTTP/1.1\r\nHost: 127.0.0.1\r\n');
    expect(answer.status).toBe(408);
    expect(JSON.parse(answer.body)).toMatchObject({ error: 'invalid_request' });
    expect(JSON.parse(answer.body).error_description).toMatch(/timed out/);
  });

  it('regression: a body that stalls gets 408 (JSON) after --request-timeout', async () => {
    const answer = await rawHttp(
      mock.url,
      'POST /webservice/authorize HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 100\r\n\r\ngrant_type=',
    );
    expect(answer.status).toBe(408);
    expect(JSON.parse(answer.body).error_description).toMatch(/timed out/);
    const clock = await fetch(`${mock.url}/_mock/clock`);
    expect(clock.status).toBe(200);
    // The journal says what the client got: the 408, not a client that went away.
    const entry = await journaled((e) => e.path === '/webservice/authorize' && e.status !== 400);
    expect(entry).toMatchObject({ status: 408, code: 'request_timeout' });
  });

  // Regression: answered before its body was in, the request later got a second, raw 408 on the
  // same connection when --request-timeout ran out.
  it('a request answered before its body is in gets one answer, even when the body stalls', async () => {
    const answer = await rawHttp(
      mock.url,
      'POST /nowhere HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 100\r\n\r\nabc',
    );
    expect(answer.status).toBe(404);
    // The connection closes when the request timeout runs out, without a second answer.
    expect(answer.body).not.toContain('HTTP/1.1');
  });

  it('a client gone mid-body is journaled as a connection ended unanswered, not a mock error', async () => {
    const { port } = new URL(mock.url);
    const socket = connect(Number(port), '127.0.0.1');
    await once(socket, 'connect');
    // node:http answers `Expect: 100-continue` when it hands the request on: the sign that the
    // mock is reading the body, which the client then leaves half sent.
    socket.write(
      'POST /webservice/authorize/revoke HTTP/1.1\r\nHost: 127.0.0.1\r\nExpect: 100-continue\r\nContent-Length: 100\r\n\r\n',
    );
    const [first] = (await once(socket, 'data')) as [Buffer];
    expect(first.toString()).toMatch(/^HTTP\/1\.1 100 Continue/);
    socket.write('token=');
    socket.destroy();
    const entry = await journaled((e) => e.path === '/webservice/authorize/revoke');
    expect(entry).toMatchObject({ status: 0, code: 'client_closed' });
    expect(entry?.reason).toMatch(/closed the connection/);
  });

  it('a request without Host, or with an expectation it cannot meet, is answered as any other', async () => {
    for (const extra of ['', 'Host: 127.0.0.1\r\nExpect: 200-ok\r\n']) {
      const answer = await rawHttp(
        mock.url,
        `POST /webservice/json/crm HTTP/1.1\r\n${extra}Content-Length: 2\r\nConnection: close\r\n\r\n{}`,
      );
      expect(answer.status, extra).toBe(401);
      expect(answer.headers['www-authenticate']).toBe('Bearer error="invalid_token"');
      expect(JSON.parse(answer.body)).toMatchObject({ error: 'invalid_token' });
    }
  });

  it('closing answers a request held by injected latency, rather than cut it', async () => {
    const server = await startMockServer({ port: 0, log: () => undefined });
    let closed = false;
    try {
      await fetch(`${server.url}/_mock/faults`, {
        method: 'POST',
        // Longer than the test's timeout: only a close that answers it lets the test end.
        body: JSON.stringify({ kind: 'latency', ms: 600_000, path: '/webservice/json/crm' }),
      });
      const pending = fetch(`${server.url}/webservice/json/crm`, { method: 'POST', body: '{}' });
      // The request has taken its fault once none is pending any more. Nothing announces that
      // moment, so the test asks until it is so; a request that never takes it is the timeout.
      for (;;) {
        const { faults } = (await (await fetch(`${server.url}/_mock/faults`)).json()) as {
          faults: unknown[];
        };
        if (faults.length === 0) break;
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      await server.close();
      closed = true;
      const res = await pending;
      expect(res.status).toBe(401);
    } finally {
      if (!closed) await server.close();
    }
  });

  it('a whole request within the timeouts is answered as usual, on a kept-alive connection too', async () => {
    for (let i = 0; i < 3; i++) {
      const res = await fetch(`${mock.url}/_mock/clock`);
      expect(res.status).toBe(200);
      await res.arrayBuffer();
    }
  });

  it('timeouts are checked: durations of at least 1 ms, the request one not shorter than the head one', async () => {
    for (const options of [
      { headersTimeout: '0s' },
      { headersTimeout: 'soon' },
      { requestTimeout: '-1' },
      { headersTimeout: '5s', requestTimeout: '1s' },
    ]) {
      await expect(startMock(options), JSON.stringify(options)).rejects.toBeInstanceOf(UsageError);
    }
    await withMock({ headersTimeout: 2, requestTimeout: '2s' }, async (m) => {
      expect((await fetch(`${m.url}/_mock/clock`)).status).toBe(200);
    });
  });

  it('dasvc mock --headers-timeout / --request-timeout set them; a bad one is a usage error', async () => {
    const bad = await runDasvc(['mock', '--port', '0', '--headers-timeout', 'soon']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--headers-timeout');
    const mock = await startMockInProcess([
      '--quiet',
      '--headers-timeout',
      '200ms',
      '--request-timeout',
      '1s',
    ]);
    try {
      const answer = await rawHttp(mock.url, 'GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n');
      expect(answer.status).toBe(408);
      expect(answer.body).toContain('within 200 ms');
    } finally {
      expect(await mock.stop()).toBe(130);
    }
  });
});
