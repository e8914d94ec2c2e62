// What the CLI says when the service refuses a token: the cause it knows (it revoked or replaced the
// token, the stored expiry passed), else the service's refusal with what it may mean; never
// "revoked" for a token that expired on the service's clock (docs/design/refusal-causes.md).
import { readFileSync, writeFileSync } from 'node:fs';
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
import { expectSaid } from '../helpers/said.js';

const mock = startMockForCli();
expectNoLeaksAfterAll();

const MAY_HAVE = "may have expired on the service's clock or been revoked elsewhere";

async function loggedIn(): Promise<string> {
  const dir = freshConfigDir();
  const result = await runCli(loginArgs(mock.url), dir, { env: browserEnv() });
  expect(result.code, result.stderr).toBe(0);
  return dir;
}

type Tokens = Record<string, unknown>;

function editTokens(dir: string, edit: (tokens: Tokens) => void): void {
  const file = join(dir, 'config.json');
  const data = JSON.parse(readFileSync(file, 'utf8'));
  edit(data.profiles.default.tokens);
  writeFileSync(file, JSON.stringify(data));
}

/** Advances the mock's virtual clock past the access token's lifetime (1h). */
const pastExpiryOnTheService = () => control(mock.url, 'clock', { advance: '2h' });

describe('a token refused by the service is told by its cause, as far as the CLI knows it', () => {
  it('expired on the service clock: rpc, then status and refresh say refused, not revoked', async () => {
    const dir = await loggedIn();
    const twin = await loggedIn();
    await pastExpiryOnTheService();
    // The CLI's own clock has not moved: it still thinks the token lives.
    const before = await runCli(['token', 'status'], dir);
    expect(before.code).toBe(0);
    expect(before.stdout).toMatch(/access: +expires in/);

    await expectSaid(['rpc', 'crm', 'contacts.list'], [dir, twin], {
      code: 3,
      jsonCode: 'invalid_token',
      message: new RegExp(
        `^the access token was refused for scope crm \\(HTTP 401: Bearer error="invalid_token"\\), and the refresh that followed was refused too \\(refresh request refused: invalid_grant .*\\): the session of profile default ${MAY_HAVE}$`,
      ),
      hint: 'dasvc login',
    });

    const status = await runCli(['token', 'status'], dir);
    expect(status.code).toBe(3);
    expect(status.stdout).toContain(`access:    refused by the service (it ${MAY_HAVE})\n`);
    expect(status.stdout).toContain(
      'refresh:   not possible (the service refused the refresh token)\n',
    );
    expect(status.stderr).toBe(
      `dasvc: the service refused the session of profile default: it ${MAY_HAVE}\nhint: dasvc login\n`,
    );
    const json = await runCli(['--json', 'token', 'status'], dir);
    expect(json.code).toBe(3);
    // One document: the state, with the failure as its `error` member.
    expect(JSON.parse(json.stdout)).toMatchObject({
      usable: false,
      revoked: false,
      refused: true,
      refreshable: false,
      error: {
        code: 'refused',
        exitCode: 3,
        message: `the service refused the session of profile default: it ${MAY_HAVE}`,
        hint: 'dasvc login',
      },
    });

    await expectSaid(['token', 'refresh'], dir, {
      code: 3,
      jsonCode: 'refused',
      message: new RegExp(
        `the service refused the access token of profile default and then its refresh token: they ${MAY_HAVE}`,
      ),
      hint: 'dasvc login',
    });
    for (const result of [status, json])
      expect(result.stdout + result.stderr).not.toMatch(/revoked and|was revoked/);
  });

  it('expired on the service clock, refreshed first: the refresh token refused, with the service’s words', async () => {
    const dir = await loggedIn();
    const twin = await loggedIn();
    await pastExpiryOnTheService();
    await expectSaid(['token', 'refresh'], [dir, twin], {
      code: 3,
      jsonCode: 'invalid_grant',
      message: new RegExp(
        `^the service refused the refresh token of profile default \\(refresh request refused: invalid_grant \\(unknown, expired or revoked refresh token.*\\) \\[HTTP 400\\]\\): it ${MAY_HAVE}$`,
      ),
      hint: 'dasvc login',
    });
    const status = await runCli(['token', 'status'], dir);
    expect(status.stdout).toContain(
      'refresh:   not possible (the service refused the refresh token)\n',
    );
    expect(status.stdout).not.toMatch(/revoked/);
    await expectSaid(['token', 'refresh'], dir, {
      code: 3,
      jsonCode: 'not_refreshable',
      message: /the service refused the refresh token of profile default earlier$/,
      hint: 'dasvc login',
    });
  });

  it('expired by the stored expiry: said as expired, with its time', async () => {
    const dir = await loggedIn();
    const twin = await loggedIn();
    const expiresAt = Date.now() - 60_000;
    for (const one of [dir, twin]) editTokens(one, (tokens) => (tokens.expiresAt = expiresAt));
    await pastExpiryOnTheService();
    const at = new Date(expiresAt).toISOString().replace(/\.\d{3}Z$/, 'Z');
    await expectSaid(['rpc', 'crm', 'contacts.list'], [dir, twin], {
      code: 3,
      jsonCode: 'invalid_grant',
      message: new RegExp(
        `the service refused to refresh the session of profile default \\(refresh request refused: invalid_grant .*\\): its access token expired at ${at}, and a refresh must come before that$`,
      ),
      hint: 'dasvc login',
    });
    const status = await runCli(['token', 'status'], dir);
    expect(status.stdout).toMatch(/access: +expired \d+m( \d+s)? ago/);
    expect(status.stderr).toContain('the session of profile default has expired');
    await expectSaid(['token', 'refresh'], dir, {
      code: 3,
      jsonCode: 'not_refreshable',
      message: new RegExp(
        `the service refused the refresh token of profile default earlier, and its access token expired at ${at}$`,
      ),
      hint: 'dasvc login',
    });
  });

  it('an access token that dasvc replaced by a refresh, given as DASVC_TOKEN, is named as such', async () => {
    const dir = await loggedIn();
    const old = (await runCli(['token', 'print'], dir, { allowSecrets: true })).stdout.trim();
    expect((await runCli(['token', 'refresh'], dir)).code).toBe(0);
    await expectSaid(
      ['rpc', 'crm', 'contacts.list'],
      dir,
      {
        code: 3,
        jsonCode: 'invalid_token',
        message:
          /the access token was refused for scope crm \(HTTP 401: Bearer error="invalid_token"\): it is an access token that profile default replaced by a refresh at \S+Z$/,
        hint: 'DASVC_TOKEN holds an access token that dasvc replaced by a refresh: give the current one (dasvc token print prints it), or leave it out to use the profile',
      },
      { DASVC_TOKEN: old },
    );
    // Its fingerprint only is kept: the token itself is nowhere in the file.
    expect(readFileSync(join(dir, 'config.json'), 'utf8')).not.toContain(old);
  });

  it('an access token that dasvc revoked, given as --token, is named as such', async () => {
    const dir = await loggedIn();
    const token = (await runCli(['token', 'print'], dir, { allowSecrets: true })).stdout.trim();
    expect((await runCli(['token', 'revoke'], dir)).code).toBe(0);
    await expectSaid(['rpc', 'crm', 'contacts.list', '--token', token], dir, {
      code: 3,
      jsonCode: 'invalid_token',
      message: /: it is an access token that profile default revoked at \S+Z$/,
      hint: '--token holds an access token that dasvc revoked: give the current one (dasvc token print prints it), or leave it out to use the profile',
    });
    // The stored one is said revoked: this client did revoke it.
    const status = await runCli(['token', 'status'], dir);
    expect(status.stdout).toContain('access:    access token revoked; refresh possible\n');
  });

  it('a token dasvc knows nothing of keeps the plain refusal', async () => {
    const dir = await loggedIn();
    await expectSaid(
      ['rpc', 'crm', 'contacts.list'],
      dir,
      {
        code: 3,
        jsonCode: 'invalid_token',
        message:
          /^the access token was refused for scope crm \(HTTP 401: Bearer error="invalid_token"\)$/,
        hint: 'DASVC_TOKEN holds a token the service refused: give a valid access token (dasvc token print prints the stored one), or leave it out to use the profile',
      },
      { DASVC_TOKEN: 'never-issued-by-anyone' },
    );
  });

  it('an ended access token of an older file, cause unrecorded, is not claimed revoked', async () => {
    const dir = await loggedIn();
    editTokens(dir, (tokens) => {
      tokens.accessToken = null;
      tokens.refreshToken = null;
    });
    const status = await runCli(['token', 'status'], dir);
    expect(status.stdout).toContain(
      'access:    access token gone (revoked, or refused by the service); refresh not possible (no refresh token)\n',
    );
    await expectSaid(['token', 'refresh'], dir, {
      code: 3,
      jsonCode: 'revoked',
      message:
        /^profile default holds no refresh token, and its access token is gone \(revoked, or refused by the service\)$/,
      hint: 'dasvc login',
    });
  });
});
