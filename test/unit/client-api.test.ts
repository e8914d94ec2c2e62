import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  dasvc,
  ServiceError,
  AuthError,
  ExitCode,
  NetworkError,
  type SendFn,
} from '../../src/index.js';
import { startMockServer } from '../../src/mock/index.js';

let mock: Awaited<ReturnType<typeof startMockServer>>;
beforeAll(async () => {
  mock = await startMockServer({ port: 0, autoApprove: 'bob', log: () => undefined });
});
afterAll(() => mock.close());

describe('programmatic client (export `dasvc`)', () => {
  it('logs in, calls, refreshes and revokes with the CLI code paths', async () => {
    const client = dasvc({
      baseUrl: mock.url,
      clientId: 'demo-client',
      clientSecret: 'demo-secret',
    });
    const { tokens } = await client.login({
      scope: 'crm',
      tell: () => undefined,
      openBrowser: async (url) => {
        const answer = await fetch(url, { redirect: 'manual' });
        await fetch(answer.headers.get('location')!);
      },
    });
    const contacts = await client.rpc<{ id: number }[]>('crm', tokens.accessToken, 'contacts.list');
    expect(contacts.map((c) => c.id)).toEqual([3, 4]);
    await expect(
      client.rpc('crm', tokens.accessToken, 'contacts.get', { id: 1 }),
    ).rejects.toBeInstanceOf(ServiceError);
    const next = await client.refresh(tokens.refreshToken!);
    expect(next.accessToken).not.toBe(tokens.accessToken);
    await expect(client.revoke(next.refreshToken!, 'refresh_token')).resolves.toEqual({
      result: 'Token revoked',
    });
    await expect(client.rpc('crm', next.accessToken, 'contacts.list')).rejects.toBeInstanceOf(
      AuthError,
    );
  });
});

describe('programmatic client login without a tell callback', () => {
  it('tells the human on stderr and still completes', async () => {
    const client = dasvc({
      baseUrl: mock.url,
      clientId: 'demo-client',
      clientSecret: 'demo-secret',
    });
    const written: string[] = [];
    const spy = vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => {
      written.push(String(chunk));
      return true;
    });
    try {
      const { tokens } = await client.login({
        scope: 'crm',
        openBrowser: async (url) => {
          const answer = await fetch(url, { redirect: 'manual' });
          await fetch(answer.headers.get('location')!);
        },
      });
      expect(tokens.accessToken).toMatch(/^[A-Za-z0-9_-]{43}$/);
    } finally {
      spy.mockRestore();
    }
    expect(written.join('')).toContain('/webservice/authorize/?response_type=code');
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
    dasvc({ baseUrl: 'http://127.0.0.1:1', clientId: 'c', clientSecret: 's', send });

  it('rejects an answer whose id is not the call id with NetworkError (exit 4)', async () => {
    const client = clientWith(answering({ jsonrpc: '2.0', result: [1], id: 2 }));
    const error = await client.rpc('crm', 'token', 'contacts.list', {}, 1).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NetworkError);
    expect((error as NetworkError).exitCode).toBe(ExitCode.network);
    expect((error as NetworkError).exitCode).toBe(4);
  });

  it('resolves with result when the id matches the call', async () => {
    const client = clientWith(answering({ jsonrpc: '2.0', result: [1], id: 7 }));
    await expect(client.rpc('crm', 'token', 'contacts.list', {}, 7)).resolves.toEqual([1]);
  });
});
