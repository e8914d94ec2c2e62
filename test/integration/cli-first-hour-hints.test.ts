// The hints of a new user's first mistakes: a wrong client secret, a profile name with a typo, an
// unknown scope, a number given as `k=v`. Each on stderr and in the `--json` error document.
import { describe, expect, it } from 'vitest';
import {
  expectNoLeaksAfterAll,
  loggedInBeforeAll,
  runCli,
  startMockForCli,
  type CliResult,
} from '../helpers/cli.js';
import { expectSaid } from '../helpers/said.js';

const mock = startMockForCli();
expectNoLeaksAfterAll();
const loggedIn = loggedInBeforeAll(mock, 'crm wiki');

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
