// Hints that send the user the right way and a logout that keeps tokens the service may still
// honour (SPEC §3 `logout [--forget]`), through the built CLI and the mock.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  browserEnv,
  control,
  expectNoLeaksAfterAll,
  freshConfigDir,
  loginArgs,
  runCli,
  startMockForCli,
} from '../helpers/cli.js';

const mock = startMockForCli();
expectNoLeaksAfterAll();
async function loggedIn(scope: string, profile = 'default'): Promise<string> {
  const dir = freshConfigDir();
  const login = await runCli([...loginArgs(mock.url, scope), '--profile', profile], dir, {
    env: browserEnv(),
  });
  expect(login.code, login.stderr).toBe(0);
  return dir;
}

function stored(
  dir: string,
  profile = 'default',
): {
  scope: string;
  tokens?: unknown;
  clientId?: string;
  clientSecret?: string;
} {
  return JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')).profiles[profile];
}

describe('hints that send the user the right way', () => {
  it('a refused DASVC_TOKEN or --token is blamed, not the login', async () => {
    const dir = freshConfigDir();
    const viaEnv = await runCli(['rpc', 'crm', 'contacts.list', '--base-url', mock.url], dir, {
      env: { DASVC_TOKEN: 'not-a-token-the-service-knows' },
    });
    expect(viaEnv.code).toBe(3);
    expect(viaEnv.stderr).toMatch(/^hint: .*DASVC_TOKEN/m);
    expect(viaEnv.stderr).not.toContain('dasvc login');
    const viaFlag = await runCli(
      ['rpc', 'crm', 'contacts.list', '--base-url', mock.url, '--token', 'not-a-token-either'],
      dir,
    );
    expect(viaFlag.code).toBe(3);
    expect(viaFlag.stderr).toMatch(/^hint: .*--token/m);
  });

  it('a 403 hints a login with the union of scopes, and the profile', async () => {
    const dir = await loggedIn('crm', 'work');
    const result = await runCli(['--profile', 'work', 'rpc', 'wiki', 'pages.list'], dir);
    expect(result.code).toBe(3);
    expect(result.stderr).toContain('hint: dasvc login --profile work --scope "crm wiki"\n');
    expect(stored(dir, 'work').scope).toBe('crm');
  });

  it('a 401 hints the login of the profile as it is, and never changes the stored scope', async () => {
    const dir = await loggedIn('crm wiki', 'work');
    // The service forgets the profile's tokens (as after a revoke elsewhere).
    await control(mock.url, 'reset', {});
    const result = await runCli(['--profile', 'work', 'rpc', 'crm', 'contacts.list'], dir);
    expect(result.code).toBe(3);
    expect(result.stderr).toContain('hint: dasvc login --profile work\n');
    expect(stored(dir, 'work').scope).toBe('crm wiki');
  });
});

/** The mock answers the next `count` revoke requests with `status`. */
const failRevokes = (status: number, count: number) =>
  control(mock.url, 'faults', {
    kind: 'error',
    status,
    count,
    path: '/webservice/authorize/revoke',
  });

/** A logout the service refuses (`count` revokes answered `status`): exit 1, hinting --forget. */
async function refusedLogout(dir: string, status: number, count: number): Promise<void> {
  await failRevokes(status, count);
  const refused = await runCli(['logout'], dir);
  expect(refused.code).toBe(1);
  expect(refused.stderr).toContain('--forget');
}

describe('logout (SPEC §3)', () => {
  it('keeps the tokens when the service cannot be reached; --forget deletes them anyway', async () => {
    const dir = await loggedIn('crm');
    // The profile's own installation drops the connections (a logout never revokes elsewhere).
    const dropRevokes = (count: number) =>
      control(mock.url, 'faults', { kind: 'drop', count, path: '/webservice/authorize/revoke' });
    await dropRevokes(1);
    const kept = await runCli(['logout'], dir);
    expect(kept.code, kept.stderr).toBe(4);
    expect(kept.stderr).toContain('--forget');
    expect(stored(dir).tokens).toBeDefined();
    expect((await runCli(['token', 'status'], dir)).code).toBe(0);
    await dropRevokes(2);
    const forgotten = await runCli(['logout', '--forget'], dir);
    expect(forgotten.code, forgotten.stderr).toBe(0);
    expect(forgotten.stderr).toMatch(/could not revoke/);
    expect(stored(dir).tokens).toBeUndefined();
    expect((await runCli(['token', 'status'], dir)).code).toBe(3);
  });

  it('keeps them when the service refuses, with the refusal’s exit code; revokes when it answers', async () => {
    const dir = await loggedIn('crm');
    await refusedLogout(dir, 503, 2);
    expect(stored(dir).tokens).toBeDefined();
    await control(mock.url, 'faults', undefined, 'DELETE');
    expect(stored(dir).clientSecret).toBe('demo-secret');
    const done = await runCli(['logout'], dir);
    expect(done.code, done.stderr).toBe(0);
    expect(stored(dir).tokens).toBeUndefined();
    // SPEC §9: the client secret goes too; the profile's settings stay.
    expect(stored(dir).clientSecret).toBeUndefined();
    expect(stored(dir).clientId).toBe('demo-client');
  });

  it('a refused access-token revoke stops the logout: the kept pair still works', async () => {
    const dir = await loggedIn('crm');
    // One refusal: the access token's revoke. Going on to the refresh token would end both.
    await refusedLogout(dir, 500, 1);
    const rpc = await runCli(['rpc', 'crm', 'contacts.list'], dir);
    expect(rpc.code, rpc.stderr).toBe(0);
  });
});
