import { rmSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { Quirks } from '../../src/schemas/quirks.js';
import { startMockServer } from '../../src/mock/index.js';
import { AuthError } from '../../src/errors.js';
import { createHttpClient } from '../../src/http/http-client.js';
import { dasvc } from '../../src/index.js';
import { buildRefreshRequest } from '../../src/oauth/token-request.js';
import { processTokenResponse } from '../../src/oauth/token-response.js';
import {
  browserEnv,
  expectNoLeaksAfterAll,
  freshConfigDir,
  loginArgs,
  runCli,
} from '../helpers/cli.js';

expectNoLeaksAfterAll();

/** Each quirk alone, and the login flags it needs (a moved token endpoint is configured). */
const QUIRKS: [string, Quirks][] = [
  ['expiresIn number', { expiresIn: 'number' }],
  ['expiresIn milliseconds', { expiresIn: 'milliseconds' }],
  ['expiresIn absent', { expiresIn: 'absent' }],
  ['refreshRotation false', { refreshRotation: false }],
  ['oldRefreshTokenAccepted true', { oldRefreshTokenAccepted: true }],
  ['refreshAfterExpiry true', { refreshAfterExpiry: true }],
  ['revokeUnknownToken error', { revokeUnknownToken: 'error' }],
  ['errorBody text', { errorBody: 'text' }],
  ['rpcDiscover false', { rpcDiscover: false }],
  ['tokenPath moved', { tokenPath: '/oauth/token' }],
];

describe('the CLI tolerates each quirk in its normal work', () => {
  it.each(QUIRKS)('%s: login, rpc, refresh, rpc, revoke, logout', async (_name, quirks) => {
    const mock = await startMockServer({ port: 0, autoApprove: 'alice', quirks });
    const dir = freshConfigDir();
    const run = (args: string[]) => runCli(args, dir, { env: browserEnv() });
    try {
      const tokenUrl = quirks.tokenPath ? ['--token-url', `${mock.url}${quirks.tokenPath}`] : [];
      const login = await run([...loginArgs(mock.url), ...tokenUrl]);
      expect(login.code, login.stderr).toBe(0);
      const rpc = await run(['rpc', 'crm', 'contacts.list']);
      expect(rpc.code, rpc.stderr).toBe(0);
      expect(JSON.parse(rpc.stdout)).toBeInstanceOf(Array);
      const refresh = await run(['token', 'refresh']);
      expect(refresh.code, refresh.stderr).toBe(0);
      const again = await run(['rpc', 'crm', 'contacts.list']);
      expect(again.code, again.stderr).toBe(0);
      const status = await run(['token', 'status', '--json']);
      expect(status.code, status.stderr).toBe(0);
      const logout = await run(['logout']);
      expect(logout.code, logout.stderr).toBe(0);
      expect(logout.stderr).not.toMatch(/could not revoke/);
      const after = await run(['rpc', 'crm', 'contacts.list']);
      expect(after.code).toBe(3);
    } finally {
      await mock.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('errorBody text: a refused refresh is an authentication failure (exit 3), not a network one', async () => {
    const mock = await startMockServer({
      port: 0,
      autoApprove: 'alice',
      quirks: { errorBody: 'text' },
    });
    const dir = freshConfigDir();
    try {
      const login = await runCli(loginArgs(mock.url), dir, { env: browserEnv() });
      expect(login.code, login.stderr).toBe(0);
      // Past the access token's expiry its refresh token is refused (SERVICE.md 4.3), as text.
      await fetch(`${mock.url}/_mock/clock`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ advance: '2h' }),
      });
      const refresh = await runCli(['token', 'refresh'], dir);
      expect(refresh.code, refresh.stderr).toBe(3);
      expect(refresh.stderr).toContain('invalid_grant');
    } finally {
      await mock.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('rpcDiscover false: an unknown method is still a JSON-RPC error (exit 1), with no hint', async () => {
    const mock = await startMockServer({
      port: 0,
      autoApprove: 'alice',
      quirks: { rpcDiscover: false },
    });
    const dir = freshConfigDir();
    try {
      expect((await runCli(loginArgs(mock.url), dir, { env: browserEnv() })).code).toBe(0);
      const result = await runCli(['rpc', 'crm', 'contacts.lst'], dir);
      expect(result.code, result.stderr).toBe(1);
      expect(result.stderr).toContain('-32601');
    } finally {
      await mock.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('the library tolerates each quirk in its normal work', () => {
  it.each(QUIRKS)('%s: login, rpc, refresh, rpc, revoke', async (_name, quirks) => {
    const mock = await startMockServer({ port: 0, autoApprove: 'alice', quirks });
    try {
      const client = dasvc({
        baseUrl: mock.url,
        clientId: 'demo-client',
        clientSecret: 'demo-secret',
        scope: 'crm',
        store: 'memory',
        env: {},
        ...(quirks.tokenPath ? { tokenUrl: `${mock.url}${quirks.tokenPath}` } : {}),
      });
      const { tokens } = await client.login({
        openBrowser: async (url) => {
          const answer = await fetch(url, { redirect: 'manual' });
          await fetch(answer.headers.get('location')!);
        },
      });
      if (quirks.expiresIn === 'absent') expect(tokens.expiresAt).toBeNull();
      else expect(tokens.expiresAt).toBeGreaterThan(Date.now());
      expect(await client.rpc('crm', 'contacts.list')).toBeInstanceOf(Array);
      const next = await client.refresh();
      expect(next.refreshToken).toBeTruthy();
      expect(await client.rpc('crm', 'contacts.list')).toBeInstanceOf(Array);
      const { revoked } = await client.revoke({ all: true });
      expect(revoked.access_token?.body).toEqual({ result: 'Token revoked' });
      expect(revoked.refresh_token?.body).toEqual({ result: 'Token revoked' });
      // The revoked refresh token no longer refreshes: the request step as the client sends it.
      const request = buildRefreshRequest({
        url: `${mock.url}/webservice/authorize/refresh_token`,
        client: { clientId: 'demo-client', clientSecret: 'demo-secret' },
        refreshToken: next.refreshToken!,
        placement: 'query',
      });
      await expect(
        createHttpClient()(request).then((answer) =>
          processTokenResponse(answer, Date.now(), 'refresh request', next.refreshToken),
        ),
      ).rejects.toBeInstanceOf(AuthError);
    } finally {
      await mock.close();
    }
  });
});
