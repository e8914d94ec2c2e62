import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dasvc, ServiceError, AuthError } from '../../src/index.js';
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
