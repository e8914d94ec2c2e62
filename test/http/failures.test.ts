// Every network failure is a sentence with the URL, exit 4, and no library code:
// real sockets on 127.0.0.1 for refused, closed, reset, timed out and TLS; DNS (which would leave
// this machine) with the error shapes node:http and fetch produce.
import { rmSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hintFor } from '../../src/cli/hints/hint-for.js';
import { ExitCode, NetworkError } from '../../src/errors.js';
import { createHttpClient } from '../../src/http/http-client.js';
import { networkErrorFrom } from '../../src/http/network-error.js';
import {
  control,
  freshConfigDir,
  mintTokens,
  runCli,
  runCliProcess,
  startMockForCli,
} from '../helpers/cli.js';

const LIBRARY_CODE = /UND_ERR|ECONN|ENOTFOUND|EAI_|ERR_[A-Z]|EPIPE|ETIMEDOUT/;
const servers: Server[] = [];
const sockets: Socket[] = [];

/** A TCP server on 127.0.0.1 that treats each connection with `onConnection`. */
async function tcpServer(onConnection: (socket: Socket) => void): Promise<number> {
  const server = createServer((socket) => {
    sockets.push(socket);
    onConnection(socket);
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as { port: number }).port;
}

let refusedPort = 0;
beforeAll(async () => {
  // A port that was just free: nothing listens there any more.
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  refusedPort = (probe.address() as { port: number }).port;
  await new Promise((resolve) => probe.close(resolve));
});
afterAll(async () => {
  for (const socket of sockets) socket.destroy();
  await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
});

async function failure(url: string, timeoutMs = 30_000): Promise<NetworkError> {
  const send = createHttpClient({ env: {}, timeoutMs });
  const error = await send({ method: 'POST', url, headers: {}, body: '{}' }).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(NetworkError);
  const networkError = error as NetworkError;
  expect(networkError.exitCode).toBe(ExitCode.network);
  expect(networkError.message).not.toMatch(LIBRARY_CODE);
  return networkError;
}

describe('network failures in words (SPEC §4 exit 4)', () => {
  it('connection refused', async () => {
    const url = `http://127.0.0.1:${refusedPort}/webservice/authorize?client_secret=s3cret`;
    const error = await failure(url);
    expect(error.message).toBe(
      `cannot connect to http://127.0.0.1:${refusedPort}/webservice/authorize: connection refused (nothing listens at 127.0.0.1:${refusedPort})`,
    );
    expect(error.code).toBe('connection_refused');
    expect(hintFor(error)).toMatch(/service is running/);
  });

  it('closed or reset before the answer', async () => {
    const closing = await tcpServer((socket) => socket.once('data', () => socket.destroy()));
    const closed = await failure(`http://127.0.0.1:${closing}/webservice/json/crm`);
    expect(closed.message).toBe(
      `the connection to http://127.0.0.1:${closing}/webservice/json/crm was closed before the answer came (connection reset)`,
    );
    const resetting = await tcpServer((socket) =>
      socket.once('data', () => socket.resetAndDestroy()),
    );
    const reset = await failure(`http://127.0.0.1:${resetting}/webservice/json/crm`);
    expect(reset.code).toBe('connection_reset');
    expect(reset.message).toContain(`http://127.0.0.1:${resetting}/webservice/json/crm`);
  });

  it('no answer in time', async () => {
    const silent = await tcpServer(() => undefined);
    const error = await failure(`http://127.0.0.1:${silent}/webservice/json/crm`, 300);
    expect(error.message).toBe(
      `no answer from http://127.0.0.1:${silent}/webservice/json/crm within 0.3 s (timed out)`,
    );
    expect(hintFor(error)).toContain('DASVC_HTTP_TIMEOUT');
  });

  it('TLS with a server that does not speak it', async () => {
    const plain = await tcpServer((socket) =>
      socket.once('data', () => socket.end('HTTP/1.1 400 Bad Request\r\n\r\n')),
    );
    const error = await failure(`https://127.0.0.1:${plain}/webservice/json/crm`);
    expect(error.code).toBe('tls');
    expect(error.message).toBe(
      `TLS with 127.0.0.1:${plain} failed for https://127.0.0.1:${plain}/webservice/json/crm: it did not answer in TLS (an http:// address given as https://?)`,
    );
  });

  it('DNS, and certificates, as node:http and fetch report them', () => {
    const url = 'https://nowhere.invalid/webservice/json/crm?x=1';
    const dns = Object.assign(new Error('getaddrinfo ENOTFOUND nowhere.invalid'), {
      code: 'ENOTFOUND',
      hostname: 'nowhere.invalid',
    });
    for (const error of [dns, new TypeError('fetch failed', { cause: dns })]) {
      const mapped = networkErrorFrom(error, url, 30_000);
      expect(mapped.message).toBe(
        'cannot find the host nowhere.invalid (DNS lookup found no such name) for https://nowhere.invalid/webservice/json/crm',
      );
      expect(mapped.code).toBe('dns');
    }
    const expired = Object.assign(new Error('certificate has expired'), {
      code: 'CERT_HAS_EXPIRED',
    });
    expect(networkErrorFrom(expired, url, 1000).message).toBe(
      'TLS with nowhere.invalid failed for https://nowhere.invalid/webservice/json/crm: its certificate has expired',
    );
    const selfSigned = Object.assign(new Error('self-signed certificate'), {
      code: 'DEPTH_ZERO_SELF_SIGNED_CERT',
    });
    expect(
      hintFor(networkErrorFrom(new TypeError('fetch failed', { cause: selfSigned }), url, 1)),
    ).toContain('NODE_EXTRA_CA_CERTS');
    const socket = Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' });
    const undici = networkErrorFrom(new TypeError('fetch failed', { cause: socket }), url, 1);
    expect(undici.code).toBe('connection_reset');
    expect(undici.message).not.toMatch(LIBRARY_CODE);
    const odd = Object.assign(new Error('UND_ERR_ODD: something odd'), { code: 'UND_ERR_ODD' });
    const other = networkErrorFrom(new TypeError('fetch failed', { cause: odd }), url, 1);
    expect(other.message).toBe(
      'the exchange with https://nowhere.invalid/webservice/json/crm failed: something odd',
    );
  });
});

describe('through a proxy (SPEC §1 proxy variables)', () => {
  // Regression: a proxy that refused was reported as the service refusing.
  it('a proxy that refuses: the sentence names the proxy, never its credentials', async () => {
    const send = createHttpClient({
      env: { HTTPS_PROXY: `http://user:proxy-password@127.0.0.1:${refusedPort}` },
      timeoutMs: 5000,
    });
    const error = (await send({
      method: 'POST',
      url: 'https://das.example.com/webservice/json/crm?token=abc',
      headers: {},
      body: '{}',
    }).catch((e: unknown) => e)) as NetworkError;
    expect(error).toBeInstanceOf(NetworkError);
    expect(error.message).toBe(
      `cannot connect to the proxy http://127.0.0.1:${refusedPort} for https://das.example.com/webservice/json/crm: connection refused (nothing listens at 127.0.0.1:${refusedPort})`,
    );
    expect(hintFor(error)).toBe('check HTTP_PROXY / HTTPS_PROXY, or list the host in NO_PROXY');
  });

  // Regression: after the timeout was reported, the connection to the silent proxy kept the
  // process alive (for ever, until killed).
  it('a proxy that never answers: the timeout, exit 4, and the process ends', async () => {
    const silent = await tcpServer(() => undefined);
    // The process ends by itself (a hang is the test's timeout), with the timeout's exit code.
    const result = await runCliProcess(
      ['rpc', 'crm', 'contacts.list', '--base-url', 'http://127.0.0.1:59999', '--token', 't'],
      freshConfigDir(),
      { env: { HTTP_PROXY: `http://127.0.0.1:${silent}`, DASVC_HTTP_TIMEOUT: '0.5' } },
    );
    expect(result.code, result.stderr).toBe(4);
    expect(result.stderr).toContain('within 0.5 s (timed out)');
  });

  it('a proxy host that does not resolve (as undici reports it)', () => {
    const lookup = Object.assign(new Error('getaddrinfo ENOTFOUND proxy.invalid'), {
      code: 'ENOTFOUND',
      hostname: 'proxy.invalid',
    });
    const error = networkErrorFrom(lookup, 'https://das.example.com/webservice/json/crm', 1000, [
      'http://proxy.invalid:3128',
    ]);
    expect(error.message).toBe(
      'cannot find the host proxy.invalid:3128 (DNS lookup found no such name) for the proxy http://proxy.invalid:3128 for https://das.example.com/webservice/json/crm',
    );
  });
});

describe('through the CLI: a sentence, not a library code such as UND_ERR_SOCKET', () => {
  const mock = startMockForCli();

  it('a dropped connection: a sentence with the URL, exit 4', async () => {
    const dir = freshConfigDir();
    const { access_token } = await mintTokens(mock.url, 'alice', 'crm');
    try {
      await control(mock.url, 'faults', { kind: 'drop', path: '/webservice/json' });
      const result = await runCli(['rpc', 'crm', 'contacts.list'], dir, {
        env: { DASVC_TOKEN: access_token, DASVC_BASE_URL: mock.url },
      });
      expect(result.code).toBe(4);
      expect(result.stderr).toBe(
        `dasvc: the connection to ${mock.url}/webservice/json/crm was closed before the answer came (connection reset)\nhint: try again; if it keeps happening, a proxy or the service drops the request\n`,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
