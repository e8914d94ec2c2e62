import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  browserEnv,
  clearJournal,
  control,
  expectNoLeaksAfterAll,
  freshConfigDir,
  journalEntries,
  loginArgs,
  mintTokens,
  runCli,
  secrets,
  startMockForCli,
} from '../helpers/cli.js';

const mock = startMockForCli();
expectNoLeaksAfterAll();

async function loggedIn(args: string[] = []): Promise<string> {
  const dir = freshConfigDir();
  const result = await runCli([...loginArgs(mock.url), ...args], dir, { env: browserEnv() });
  expect(result.code, result.stderr).toBe(0);
  return dir;
}

function storedTokens(
  dir: string,
  profile = 'default',
): { accessToken: string; refreshToken: string; expiresAt: number } {
  return JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')).profiles[profile].tokens;
}

/** Revokes a refresh token with another config dir and the client's variables (CI, an admin). */
async function revokeElsewhere(refreshToken: string): Promise<void> {
  const revoked = await runCli(
    ['token', 'revoke', '--token', refreshToken, '--hint', 'refresh_token'],
    freshConfigDir(),
    {
      env: {
        DASVC_BASE_URL: mock.url,
        DASVC_CLIENT_ID: 'demo-client',
        DASVC_CLIENT_SECRET: 'demo-secret',
      },
    },
  );
  expect(revoked.code, revoked.stderr).toBe(0);
}

describe('dasvc token', () => {
  it('status: human on stdout, --json for scripts, exit 3 when not logged in', async () => {
    const dir = await loggedIn();
    const human = await runCli(['token', 'status'], dir);
    expect(human.code).toBe(0);
    expect(human.stdout).toMatch(/profile: +default/);
    expect(human.stdout).toMatch(/access: +expires in (59m|1h)/);
    expect(human.stdout).toMatch(/refresh: +possible/);
    const json = await runCli(['token', 'status', '--json'], dir);
    expect(JSON.parse(json.stdout)).toMatchObject({
      profile: 'default',
      baseUrl: mock.url,
      scope: 'crm wiki',
      refreshable: true,
      expired: false,
    });
    const none = await runCli(['token', 'status'], freshConfigDir());
    expect(none.code).toBe(3);
    expect(none.stderr).toContain('not logged in');
    const noneJson = await runCli(['--json', 'token', 'status'], freshConfigDir());
    expect(noneJson.code).toBe(3);
    // --json: the error as one JSON document on stdout; stderr stays for humans.
    expect(JSON.parse(noneJson.stdout)).toEqual({
      error: {
        exitCode: 3,
        code: 'not_logged_in',
        message: 'not logged in (profile default)',
        hint: expect.stringContaining('dasvc login'),
      },
    });
    expect(noneJson.stderr).toContain('dasvc: not logged in (profile default)');
  });

  it('print: the access token alone, usable as a bearer token', async () => {
    const dir = await loggedIn();
    const printed = await runCli(['token', 'print'], dir, { allowSecrets: true });
    expect(printed.code).toBe(0);
    expect(printed.stdout).toBe(`${storedTokens(dir).accessToken}\n`);
    const answer = await fetch(`${mock.url}/webservice/json/crm`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${printed.stdout.trim()}`,
        'content-type': 'application/json',
      },
      body: JSON.stringify({ jsonrpc: '2.0', method: 'contacts.list', params: {}, id: 1 }),
    });
    expect(answer.status).toBe(200);
  });

  it('refresh: stores a new pair, the old one stops working', async () => {
    const dir = await loggedIn();
    const before = storedTokens(dir);
    const result = await runCli(['token', 'refresh', '--json'], dir);
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ profile: 'default', refreshable: true });
    const after = storedTokens(dir);
    expect(after.accessToken).not.toBe(before.accessToken);
    expect(after.refreshToken).not.toBe(before.refreshToken);
    const old = await runCli(['rpc', 'crm', 'contacts.list', '--token', before.accessToken], dir);
    expect(old.code).toBe(3);
    const fresh = await runCli(['rpc', 'crm', 'contacts.list'], dir);
    expect(fresh.code).toBe(0);
  });

  it('revoke: shows the service answer; --all revokes both and forgets them', async () => {
    const dir = await loggedIn();
    const access = await runCli(['token', 'revoke'], dir);
    expect(access.code, access.stderr).toBe(0);
    expect(JSON.parse(access.stdout)).toEqual({ result: 'Token revoked' });
    const all = await loggedIn();
    const tokens = storedTokens(all);
    const both = await runCli(['token', 'revoke', '--all'], all);
    expect(both.code, both.stderr).toBe(0);
    expect(
      both.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l)),
    ).toEqual([{ result: 'Token revoked' }, { result: 'Token revoked' }]);
    expect((await runCli(['token', 'status'], all)).code).toBe(3);
    expect(
      (await runCli(['rpc', 'crm', 'contacts.list', '--token', tokens.accessToken], all)).code,
    ).toBe(3);
    expect((await runCli(['token', 'revoke', '--hint', 'nonsense'], all)).code).toBe(2);
  });

  it('revoke prints the service body exactly; --all --json prints one JSON document', async () => {
    const dir = await loggedIn();
    const access = await runCli(['token', 'revoke'], dir);
    expect(access.stdout).toBe('{"result":"Token revoked"}\n');
    const all = await loggedIn();
    const both = await runCli(['token', 'revoke', '--all', '--json'], all);
    expect(both.code, both.stderr).toBe(0);
    expect(JSON.parse(both.stdout)).toEqual({
      refresh_token: { result: 'Token revoked' },
      access_token: { result: 'Token revoked' },
    });
  });

  it('regression: revoke with nothing stored to revoke is exit 3 (it was 0)', async () => {
    const dir = await loggedIn();
    expect((await runCli(['token', 'revoke'], dir)).code).toBe(0);
    const again = await runCli(['token', 'revoke'], dir);
    expect(again.code).toBe(3);
    expect(again.stdout).toBe('');
    expect(again.stderr).toMatch(/no access_token to revoke/);
    const none = await runCli(['token', 'revoke', '--all'], freshConfigDir());
    expect(none.code).toBe(3);
    expect(none.stderr).toContain('not logged in');
  });

  it('regression: after an access-only revoke, status says so and refresh stays possible', async () => {
    const dir = await loggedIn();
    const before = storedTokens(dir);
    expect((await runCli(['token', 'revoke'], dir)).code).toBe(0);
    const stored = storedTokens(dir) as unknown as Record<string, unknown>;
    // One encoding of a revoked access token: null, its expiry kept.
    expect(stored).not.toHaveProperty('accessRevoked');
    expect(stored).toMatchObject({
      accessToken: null,
      refreshToken: before.refreshToken,
      expiresAt: before.expiresAt,
    });
    const human = await runCli(['token', 'status'], dir);
    expect(human.code, human.stderr).toBe(0);
    expect(human.stdout).toContain('access token revoked; refresh possible');
    expect(human.stdout).not.toMatch(/expired|ago/);
    const json = await runCli(['token', 'status', '--json'], dir);
    expect(JSON.parse(json.stdout)).toMatchObject({
      revoked: true,
      refreshable: true,
      expired: false,
    });
    // rpc replaces the revoked access token by a refresh, as status said it could.
    const rpc = await runCli(['rpc', 'crm', 'contacts.list'], dir);
    expect(rpc.code, rpc.stderr).toBe(0);
    const after = storedTokens(dir) as unknown as Record<string, unknown>;
    expect(after.accessToken).toEqual(expect.any(String));
    expect(after.accessRevoked).toBeUndefined();
    // Once the revoked token's lifetime has passed, no refresh is possible: exit 3.
    expect((await runCli(['token', 'revoke'], dir)).code).toBe(0);
    const file = join(dir, 'config.json');
    const data = JSON.parse(readFileSync(file, 'utf8'));
    data.profiles.default.tokens.expiresAt = Date.now() - 1000;
    writeFileSync(file, JSON.stringify(data));
    const late = await runCli(['token', 'status'], dir);
    expect(late.code).toBe(3);
    expect(late.stdout).toContain('access token revoked; refresh not possible');
    expect(late.stderr).toContain(
      'the access token of profile default was revoked and cannot be replaced by a refresh',
    );
  });

  it('a refresh the service refuses is recorded: status no longer says a refresh is possible', async () => {
    const dir = await loggedIn();
    // Revoked from elsewhere (another machine, an admin): the service ends the whole grant.
    await revokeElsewhere(storedTokens(dir).refreshToken);
    const call = await runCli(['rpc', 'crm', 'contacts.list'], dir);
    expect(call.code).toBe(3);
    // The API refused the access token and the service the refresh token: both are gone.
    const status = await runCli(['token', 'status', '--json'], dir);
    expect(status.code).toBe(3);
    // Refused, not revoked: this client revoked nothing, and why the service refused is its own.
    expect(JSON.parse(status.stdout)).toMatchObject({
      refreshable: false,
      revoked: false,
      refused: true,
    });
    const again = await runCli(['token', 'refresh'], dir);
    expect(again.code).toBe(3);
    expect(again.stderr).toMatch(/dasvc login/);
  });

  it('an access token the API refuses once no refresh is left is recorded as refused too', async () => {
    const dir = await loggedIn();
    await revokeElsewhere(storedTokens(dir).refreshToken);
    // The refresh is refused first: the access token is still stored, and still thought usable.
    expect((await runCli(['token', 'refresh'], dir)).code).toBe(3);
    // Then the API refuses the access token, and nothing can replace it.
    expect((await runCli(['rpc', 'crm', 'contacts.list'], dir)).code).toBe(3);
    const status = await runCli(['token', 'status', '--json'], dir);
    expect(status.code).toBe(3);
    expect(JSON.parse(status.stdout)).toMatchObject({ usable: false, refused: true });
    const print = await runCli(['token', 'print'], dir);
    expect(print.code).toBe(3);
    expect(print.stdout).toBe('');
  });

  it('a refusal under another client (a variable overriding the profile’s) keeps the stored pair', async () => {
    const dir = await loggedIn();
    const before = storedTokens(dir);
    // The service refuses the profile's refresh token to another client (invalid_grant): that
    // says nothing of the session, which the profile's own client still refreshes.
    const other = await runCli(['token', 'refresh'], dir, {
      env: { DASVC_CLIENT_ID: 'other-client', DASVC_CLIENT_SECRET: 'other-secret' },
    });
    expect(other.code).toBe(3);
    expect(storedTokens(dir)).toEqual(before);
    const own = await runCli(['token', 'refresh'], dir);
    expect(own.code, own.stderr).toBe(0);
  });

  it('refresh prints the new expiry on stdout, and no second success line on stderr', async () => {
    const dir = await loggedIn();
    const result = await runCli(['token', 'refresh'], dir);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(
      /^profile default · scope crm wiki · access token expires \S+Z \(in (59m \d+s|1h)\)\n$/,
    );
    expect(result.stderr).toBe('');
  });

  it('revoke in a CI pipeline: env credentials, --token, empty config dir', async () => {
    const minted = await mintTokens(mock.url, 'alice', 'crm');
    const empty = freshConfigDir();
    const env = {
      DASVC_BASE_URL: mock.url,
      DASVC_CLIENT_ID: 'demo-client',
      DASVC_CLIENT_SECRET: 'demo-secret',
    };
    const result = await runCli(
      ['token', 'revoke', '--token', minted.access_token, '--hint', 'access_token', '--json'],
      empty,
      { env },
    );
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({ result: 'Token revoked' });
    const after = await runCli(['rpc', 'crm', 'contacts.list'], empty, {
      env: { ...env, DASVC_TOKEN: minted.access_token },
    });
    expect(after.code).toBe(3);
    // DASVC_TOKEN works for revoke too; the refresh token of the pair is next.
    const refresh = await runCli(['token', 'revoke', '--hint', 'refresh_token'], empty, {
      env: { ...env, DASVC_TOKEN: minted.refresh_token },
    });
    expect(refresh.code, refresh.stderr).toBe(0);
    const wrongSecret = await runCli(['token', 'revoke', '--token', 'whatever'], empty, {
      env: { ...env, DASVC_CLIENT_SECRET: 'wrong-secret-value' },
    });
    expect(wrongSecret.code).toBe(3);
    secrets.add('wrong-secret-value');
    const noCreds = await runCli(
      ['token', 'revoke', '--token', 'whatever', '--base-url', mock.url],
      empty,
    );
    expect(noCreds.code).toBe(2);
    expect(noCreds.stderr).toContain('DASVC_CLIENT_ID');
    expect(() => readFileSync(join(empty, 'config.json'))).toThrow();
  });

  it('logout: revokes both at the service and forgets them; unreachable, keeps them unless --forget', async () => {
    const dir = await loggedIn();
    const tokens = storedTokens(dir);
    await clearJournal(mock.url);
    const result = await runCli(['logout'], dir);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toMatch(/revoked at the service and forgotten/);
    const journal = await journalEntries(mock.url);
    expect(
      journal.filter((e) => e.path === '/webservice/authorize/revoke' && e.status === 200),
    ).toHaveLength(2);
    expect(
      (await runCli(['rpc', 'crm', 'contacts.list', '--token', tokens.accessToken], dir)).code,
    ).toBe(3);
    expect((await runCli(['token', 'status'], dir)).code).toBe(3);
    const again = await runCli(['logout'], dir);
    expect(again.code).toBe(0);
    expect(again.stderr).toContain('nothing to do');
    // A profile that is none of those stored (a typo) is said, as the other commands say it.
    const typo = await runCli(['--profile', 'defualt', 'logout'], dir);
    expect(typo.code).toBe(3);
    expect(typo.stderr).toContain('there is no profile of that name; the profiles are default');

    // Tokens revoked and forgotten by `token revoke --all`: the client secret still goes.
    const revokedAll = await loggedIn();
    expect((await runCli(['token', 'revoke', '--all'], revokedAll)).code).toBe(0);
    expect(readFileSync(join(revokedAll, 'config.json'), 'utf8')).toContain('demo-secret');
    const secretOnly = await runCli(['--json', 'logout'], revokedAll);
    expect(secretOnly.code, secretOnly.stderr).toBe(0);
    expect(JSON.parse(secretOnly.stdout)).toMatchObject({ loggedIn: false, forgotten: true });
    expect(secretOnly.stderr).toContain('its client secret is forgotten');
    expect(readFileSync(join(revokedAll, 'config.json'), 'utf8')).not.toContain('demo-secret');

    const offline = await loggedIn();
    // Its installation drops the connections (a logout never revokes at another one).
    const dropRevokes = (count: number) =>
      control(mock.url, 'faults', { kind: 'drop', count, path: '/webservice/authorize/revoke' });
    await dropRevokes(1);
    const unreachable = await runCli(['logout'], offline);
    // SPEC §3: kept (they may still be valid there), the failure's exit code, --forget offered.
    expect(unreachable.code).toBe(4);
    expect(unreachable.stderr).toMatch(/hint: dasvc logout --forget/);
    expect((await runCli(['token', 'status'], offline)).code).toBe(0);
    await dropRevokes(2);
    const forgotten = await runCli(['logout', '--forget'], offline);
    expect(forgotten.code).toBe(0);
    expect(forgotten.stderr).toMatch(/could not be reached/);
    expect(forgotten.stderr).toMatch(/Logged out locally/);
    expect((await runCli(['token', 'status'], offline)).code).toBe(3);

    // A profile stored with a URL this version refuses (a password in it): --forget still works.
    const old = await loggedIn();
    const file = join(old, 'config.json');
    const data = JSON.parse(readFileSync(file, 'utf8'));
    data.profiles.default.baseUrl = data.profiles.default.baseUrl.replace('//', '//u:PW-9@');
    writeFileSync(file, JSON.stringify(data));
    const refused = await runCli(['logout'], old);
    expect(refused.code).toBe(2);
    expect(refused.stderr).not.toContain('PW-9');
    const forgot = await runCli(['logout', '--forget'], old);
    expect(forgot.code, forgot.stderr).toBe(0);
    expect(forgot.stderr).not.toContain('PW-9');
    expect(storedTokens(old)).toBeUndefined();
  });
});

describe('profiles, init and completion', () => {
  it('keeps several profiles; list, show (no secrets), use, remove', async () => {
    const dir = await loggedIn();
    const second = await runCli(
      [...loginArgs(mock.url, 'crm'), '--profile', 'work', '--params', 'body'],
      dir,
      { env: browserEnv() },
    );
    expect(second.code, second.stderr).toBe(0);
    const list = await runCli(['profile', 'list', '--json'], dir);
    expect(JSON.parse(list.stdout)).toEqual([
      { profile: 'default', active: true, baseUrl: mock.url, scope: 'crm wiki', loggedIn: true },
      { profile: 'work', active: false, baseUrl: mock.url, scope: 'crm', loggedIn: true },
    ]);
    const show = await runCli(['profile', 'show', 'work'], dir);
    expect(show.stdout).toContain('params: body');
    expect(show.stdout).toContain('clientSecret: [set]');
    expect((await runCli(['profile', 'use', 'work'], dir)).code).toBe(0);
    const status = await runCli(['token', 'status', '--json'], dir);
    expect(JSON.parse(status.stdout).profile).toBe('work');
    expect((await runCli(['rpc', 'crm', 'contacts.list'], dir)).code).toBe(0);
    expect((await runCli(['profile', 'use', 'nope'], dir)).code).toBe(2);
    expect((await runCli(['profile', 'remove', 'work'], dir)).code).toBe(0);
    expect(JSON.parse((await runCli(['profile', 'list', '--json'], dir)).stdout)).toHaveLength(1);
  });

  it('init is a usage error without a terminal', async () => {
    const result = await runCli(['init'], freshConfigDir());
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('interactive');
  });

  it('completion scripts ask the program itself (cli-completion.test.ts runs them)', async () => {
    for (const shell of ['bash', 'zsh', 'fish']) {
      const result = await runCli(['completion', shell], freshConfigDir());
      expect(result.code).toBe(0);
      expect(result.stdout, shell).toContain(`dasvc __complete --shell=${shell} `);
    }
    expect((await runCli(['completion', 'powershell'], freshConfigDir())).code).toBe(2);
  });

  it('regression: a missing command prints help and exits 2 (it was 0); --help stays 0', async () => {
    for (const args of [[], ['token'], ['profile']]) {
      const result = await runCli(args, freshConfigDir());
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stderr).toContain('Usage: dasvc');
      expect(result.stdout).toBe('');
    }
    for (const args of [
      ['--help'],
      ['token', '--help'],
      ['help'],
      ['help', 'rpc'],
      ['rpc', '--help'],
    ]) {
      const result = await runCli(args, freshConfigDir());
      expect(result.code, args.join(' ')).toBe(0);
      expect(result.stdout).toContain('Usage: dasvc');
    }
    const json = await runCli(['--json', 'token'], freshConfigDir());
    expect(JSON.parse(json.stdout).error).toMatchObject({ exitCode: 2 });
  });

  it('regression: profile names are checked (exit 2), __proto__ and friends included', async () => {
    const dir = await loggedIn();
    for (const name of [
      '__proto__',
      'constructor',
      'prototype',
      'a b',
      '../x',
      'x'.repeat(65),
      '',
    ]) {
      for (const args of [
        ['--profile', name, 'token', 'status'],
        ['profile', 'use', name],
        ['profile', 'remove', name],
      ]) {
        const result = await runCli(args, dir);
        expect(result.code, `${args.join(' ')}: ${result.stderr}`).toBe(2);
        expect(result.stderr).not.toMatch(/unexpected error/);
      }
    }
    const env = await runCli(['rpc', 'crm', 'contacts.list'], dir, {
      env: { DASVC_PROFILE: 'constructor' },
    });
    expect(env.code).toBe(2);
    expect(env.stderr).toContain('DASVC_PROFILE');
    const fine = await runCli(['--profile', 'Work.2_b-c', 'token', 'status'], dir);
    expect(fine.code).toBe(3);
  });

  it('--version and --help exit 0; an unknown command exits 2', async () => {
    const version = await runCli(['--version'], freshConfigDir());
    expect(version.code).toBe(0);
    expect(version.stdout).toMatch(/^\d+\.\d+\.\d+/);
    // --json makes it one JSON document, either order (SPEC §3: --json is machine-readable).
    for (const args of [
      ['--version', '--json'],
      ['--json', '--version'],
    ]) {
      const json = await runCli(args, freshConfigDir());
      expect(json.code).toBe(0);
      expect(JSON.parse(json.stdout)).toEqual({ version: version.stdout.trim() });
    }
    expect((await runCli(['--help'], freshConfigDir())).code).toBe(0);
    expect((await runCli(['frobnicate'], freshConfigDir())).code).toBe(2);
  });
});
