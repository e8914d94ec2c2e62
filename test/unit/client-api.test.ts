import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { dasvc, ServiceError, ExitCode, NetworkError, type SendFn } from '../../src/index.js';
import { startMockServer } from '../../src/mock/index.js';

let mock: Awaited<ReturnType<typeof startMockServer>>;
beforeAll(async () => {
  mock = await startMockServer({ port: 0, autoApprove: 'bob', log: () => undefined });
});
afterAll(() => mock.close());

const settings = () => ({
  baseUrl: mock.url,
  clientId: 'demo-client',
  clientSecret: 'demo-secret',
  scope: 'crm',
  env: {},
});
const approve = async (url: string) => {
  const answer = await fetch(url, { redirect: 'manual' });
  await fetch(answer.headers.get('location')!);
};

describe('programmatic client (export `dasvc`)', () => {
  it('logs in, calls, refreshes and revokes with the CLI code paths', async () => {
    const client = dasvc({ ...settings(), store: 'memory' });
    const { tokens } = await client.login({ openBrowser: approve });
    const contacts = await client.rpc<{ id: number }[]>('crm', 'contacts.list');
    expect(contacts.map((c) => c.id)).toEqual([3, 4]);
    await expect(client.rpc('crm', 'contacts.get', { id: 1 })).rejects.toBeInstanceOf(ServiceError);
    const next = await client.refresh();
    expect(next.accessToken).not.toBe(tokens.accessToken);
    expect(await client.accessToken()).toBe(next.accessToken);
    const { revoked } = await client.revoke({ hint: 'refresh_token' });
    expect(revoked.refresh_token?.body).toEqual({ result: 'Token revoked' });
    // The service refuses the revoked pair's access token; the client forgot both.
    await expect(
      dasvc({ ...settings(), store: 'memory', token: next.accessToken }).rpc(
        'crm',
        'contacts.list',
      ),
    ).rejects.toMatchObject({ kind: 'auth', status: 401 });
    await expect(client.rpc('crm', 'contacts.list')).rejects.toMatchObject({
      kind: 'auth',
      code: 'not_logged_in',
    });
  });
});

describe('programmatic client login without a tell callback', () => {
  it('prints nothing (SPEC §1) and still completes', async () => {
    const client = dasvc({ ...settings(), store: 'memory' });
    const written: string[] = [];
    const spies = [process.stderr, process.stdout].map((stream) =>
      vi.spyOn(stream, 'write').mockImplementation((chunk) => {
        written.push(String(chunk));
        return true;
      }),
    );
    let url = '';
    try {
      const { tokens } = await client.login({
        openBrowser: async (u) => {
          url = u;
          await approve(u);
        },
      });
      expect(tokens.accessToken).toMatch(/^[A-Za-z0-9_-]{43}$/);
    } finally {
      for (const spy of spies) spy.mockRestore();
    }
    expect(url).toContain('/webservice/authorize/?response_type=code');
    expect(written.join('')).toBe('');
  });

  it('hands what a person should see to tell', async () => {
    const told: string[] = [];
    const client = dasvc({ ...settings(), store: 'memory', tell: (m) => told.push(m) });
    await client.login({ openBrowser: approve });
    expect(told.join('\n')).toContain('/webservice/authorize/?response_type=code');
  });
});

describe('programmatic client rpc checks the answer against the call (regression: id not checked)', () => {
  const answering =
    (answer: unknown): SendFn =>
    async () => ({
      status: 200,
      headers: { 'content-type': 'application/json' },
      text: JSON.stringify(answer),
    });
  const clientWith = (send: SendFn) =>
    dasvc({ baseUrl: 'http://127.0.0.1:1', token: 'token', env: {}, send, store: 'memory' });

  it('rejects an answer whose id is not the call id with NetworkError (exit 4)', async () => {
    const client = clientWith(answering({ jsonrpc: '2.0', result: [1], id: 2 }));
    const error = await client.rpc('crm', 'contacts.list', {}).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NetworkError);
    expect((error as NetworkError).exitCode).toBe(ExitCode.network);
    expect((error as NetworkError).kind).toBe('network');
  });

  it('resolves with result when the id matches the call', async () => {
    const client = clientWith(answering({ jsonrpc: '2.0', result: [1], id: 1 }));
    await expect(client.rpc('crm', 'contacts.list', {})).resolves.toEqual([1]);
  });
});
