// The hints of a new user's first mistakes: a wrong client secret, a profile name with a typo, an
// unknown scope, a number given as `k=v`. Each on stderr and in the `--json` error document.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  browserEnv,
  expectNoLeaksAfterAll,
  freshConfigDir,
  loggedInBeforeAll,
  loginArgs,
  runCli,
  startMockForCli,
  type CliResult,
} from '../helpers/cli.js';
import { expectSaid } from '../helpers/said.js';

const mock = startMockForCli();
expectNoLeaksAfterAll();
const loggedIn = loggedInBeforeAll(mock, 'crm wiki');

function setStoredSecret(dir: string, secret: string): void {
  const file = join(dir, 'config.json');
  const data = JSON.parse(readFileSync(file, 'utf8'));
  data.profiles.default.clientSecret = secret;
  writeFileSync(file, JSON.stringify(data));
}

const INVALID_CLIENT = 'invalid_client (client authentication failed) [HTTP 401]';
const FIX = 'give the right one with --client-secret or DASVC_CLIENT_SECRET';

describe('a client secret the service does not accept', () => {
  it('at login: names --client-secret as where it came from, and the profile', async () => {
    const args = loginArgs(mock.url);
    args[args.indexOf('demo-secret')] = 'not-the-secret';
    await expectSaid(
      args,
      freshConfigDir(),
      {
        code: 3,
        jsonCode: 'invalid_client',
        message: `token request refused: ${INVALID_CLIENT}`,
        hint: `the client secret given with --client-secret was not accepted for client demo-client (profile default): ${FIX}, or check that the client id is registered`,
      },
      browserEnv(),
    );
  });

  it('at refresh: DASVC_CLIENT_SECRET, or the one stored in the profile and the login that replaces it', async () => {
    const dir = loggedIn();
    await expectSaid(
      ['token', 'refresh'],
      dir,
      {
        code: 3,
        jsonCode: 'invalid_client',
        message: `refresh request refused: ${INVALID_CLIENT}`,
        hint: `the client secret in DASVC_CLIENT_SECRET was not accepted for client demo-client (profile default): ${FIX}, or check that the client id is registered`,
      },
      { DASVC_CLIENT_SECRET: 'not-the-secret' },
    );
    setStoredSecret(dir, 'rotated-by-an-admin');
    try {
      await expectSaid(['token', 'refresh'], dir, {
        code: 3,
        jsonCode: 'invalid_client',
        message: `refresh request refused: ${INVALID_CLIENT}`,
        hint: `the client secret stored in profile default was not accepted for client demo-client: ${FIX}, or check that the client id is registered; dasvc login --client-secret SECRET stores the right one`,
      });
      // logout keeps the tokens and says both ways out.
      const logout = await runCli(['logout'], dir);
      expect(logout.code).toBe(3);
      expect(logout.stderr).toContain(
        `\nhint: the client secret stored in profile default was not accepted for client demo-client: ${FIX}, or check that the client id is registered; dasvc login --client-secret SECRET stores the right one; or dasvc logout --forget deletes them locally anyway\n`,
      );
    } finally {
      setStoredSecret(dir, 'demo-secret');
    }
  });

  it('at revoke with a token alone (CI): the flag it came from', async () => {
    await expectSaid(
      [
        'token',
        'revoke',
        '--token',
        'whatever',
        '--base-url',
        mock.url,
        '--client-id',
        'demo-client',
        '--client-secret',
        'not-the-secret',
      ],
      freshConfigDir(),
      {
        code: 3,
        jsonCode: 'invalid_client',
        message: `revoke request refused: ${INVALID_CLIENT}`,
        hint: `the client secret given with --client-secret was not accepted for client demo-client: ${FIX}, or check that the client id is registered`,
      },
    );
  });
});

describe('a profile named that does not exist', () => {
  it('is said so, with the profiles there are and the nearest one, never a login that would create it', async () => {
    const dir = loggedIn();
    await expectSaid(['--profile', 'defualt', 'rpc', 'crm', 'contacts.list'], dir, {
      code: 3,
      jsonCode: 'not_logged_in',
      message:
        'not logged in (profile defualt): there is no profile of that name; the profiles are default',
      hint: 'did you mean --profile default? (dasvc profile list shows them all)',
    });
    await expectSaid(
      ['token', 'status'],
      dir,
      {
        code: 3,
        jsonCode: 'not_logged_in',
        message:
          'not logged in (profile nosuchprofile): there is no profile of that name; the profiles are default',
        hint: 'name one of the profiles with DASVC_PROFILE: default (dasvc profile list)',
      },
      { DASVC_PROFILE: 'nosuchprofile' },
    );
  });

  it('with no profile at all, or the default one missing, the login is the hint', async () => {
    const empty = freshConfigDir();
    await expectSaid(['--profile', 'work', 'token', 'status'], empty, {
      code: 3,
      jsonCode: 'not_logged_in',
      message: 'not logged in (profile work)',
      hint: 'dasvc login --profile work',
    });
    const onlyWork = freshConfigDir();
    const login = await runCli([...loginArgs(mock.url), '--profile', 'work'], onlyWork, {
      env: browserEnv(),
    });
    expect(login.code, login.stderr).toBe(0);
    // rpc and types also take a token: the way in of a CI job with no stored profile.
    for (const command of [
      ['rpc', 'crm', 'contacts.list'],
      ['types', 'crm'],
    ]) {
      await expectSaid(command, onlyWork, {
        code: 3,
        jsonCode: 'not_logged_in',
        message: 'not logged in (profile default)',
        hint: 'dasvc login; without a stored profile (CI): DASVC_TOKEN and DASVC_BASE_URL',
      });
    }
  });
});

describe('an unknown scope (HTTP 404 from the API)', () => {
  it('lists the scopes of the profile, the nearest first', async () => {
    await expectSaid(['rpc', 'crn', 'contacts.list'], loggedIn(), {
      code: 1,
      jsonCode: 'http_404',
      message: 'no API for scope crn at this address (HTTP 404)',
      hint: 'did you mean crm? (profile default was granted scope crm wiki)',
    });
    await expectSaid(['rpc', 'billing', 'invoices.list'], loggedIn(), {
      code: 1,
      jsonCode: 'http_404',
      message: 'no API for scope billing at this address (HTTP 404)',
      hint: 'profile default was granted scope crm wiki',
    });
  });
});

describe('a param that must be a number, boolean, array or object, given as k=v', () => {
  it('hints k:=v', async () => {
    await expectSaid(['rpc', 'crm', 'contacts.get', 'id=1'], loggedIn(), {
      code: 1,
      jsonCode: 'jsonrpc_error',
      message: 'error -32602: Invalid params',
      hint: 'id=1 sent the string "1"; id:=1 sends it as JSON',
    });
    await expectSaid(['rpc', 'wiki', 'pages.list', 'limit=ten'], loggedIn(), {
      code: 1,
      jsonCode: 'jsonrpc_error',
      message: 'error -32602: Invalid params',
      hint: 'limit=ten sent the string "ten"; limit:=<JSON> sends it as JSON',
    });
  });

  it('gives no such hint when the param was typed, or is not the one the error names', async () => {
    const quiet = async (args: string[]): Promise<CliResult> => {
      const result = await runCli(args, loggedIn());
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(/^error -32602: Invalid params\n/);
      expect(result.stderr).not.toContain('hint:');
      return result;
    };
    await quiet(['rpc', 'crm', 'contacts.get', 'id:="1"']);
    await quiet(['rpc', 'crm', 'contacts.get', '{"id": "1"}']);
    await quiet(['rpc', 'crm', 'contacts.get', 'id:=1', 'extra=1']);
    await quiet(['rpc', 'crm', 'contacts.get', 'id:=0']);
  });
});
