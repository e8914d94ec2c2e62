// SPEC §3 `--json`: every command prints exactly one JSON document on stdout, successes and
// failures alike, as the built CLI runs in a script.
import { describe, expect, it } from 'vitest';
import { DasvcError } from '../../src/errors.js';
import { dasvc } from '../../src/index.js';
import {
  browserEnv,
  expectNoLeaksAfterAll,
  freshConfigDir,
  loginArgs,
  runCli,
  startMockForCli,
} from '../helpers/cli.js';

const mock = startMockForCli();
expectNoLeaksAfterAll();
/** stdout is one JSON document: JSON.parse fails on nothing and on two documents alike. */
function oneDocument(stdout: string): unknown {
  return JSON.parse(stdout);
}

describe('--json: one JSON document on stdout for every command', () => {
  it('from login to logout, rpc --notify and completion included', async () => {
    const dir = freshConfigDir();
    const runs: { args: string[]; allowSecrets?: boolean }[] = [
      { args: loginArgs(mock.url, 'crm') },
      { args: ['token', 'status'] },
      { args: ['token', 'print'], allowSecrets: true },
      { args: ['token', 'refresh'] },
      { args: ['rpc', 'crm', 'contacts.list'] },
      { args: ['rpc', 'crm', 'contacts.list', '--notify'] },
      { args: ['rpc', 'crm', 'no.such.method'] },
      { args: ['rpc'] },
      { args: ['profile', 'list'] },
      { args: ['profile', 'show'] },
      { args: ['profile', 'use', 'default'] },
      { args: ['completion', 'bash'] },
      { args: ['token', 'revoke'] },
      { args: ['logout'] },
      { args: ['token', 'status'] },
      { args: ['profile', 'remove', 'default'] },
      { args: ['frobnicate'] },
    ];
    const printed: { args: string[]; stdout: string }[] = [];
    for (const { args, allowSecrets } of runs) {
      const result = await runCli(['--json', ...args], dir, {
        env: browserEnv(),
        allowSecrets: Boolean(allowSecrets),
      });
      printed.push({ args, stdout: result.stdout });
    }
    for (const { args, stdout } of printed)
      expect(() => oneDocument(stdout), args.join(' ')).not.toThrow();
    const notify = printed.find((p) => p.args.includes('--notify'))!;
    expect(oneDocument(notify.stdout)).toBeNull();
    // One shape for every error: a snake_case string code, the exit code, the message, and a
    // JSON-RPC error under `rpc`, so that one jq filter reads them all.
    const errorOf = (args: string[]) =>
      (
        oneDocument(printed.find((p) => p.args.join(' ') === args.join(' '))!.stdout) as {
          error: Record<string, unknown>;
        }
      ).error;
    const shape = {
      code: expect.stringMatching(/^[a-z][a-z0-9]*(?:_[a-z0-9]+)*$/),
      exitCode: expect.any(Number),
      message: expect.any(String),
    };
    expect(errorOf(['rpc', 'crm', 'no.such.method'])).toMatchObject({
      ...shape,
      code: 'jsonrpc_error',
      exitCode: 1,
      rpc: { code: -32601, message: expect.any(String) },
    });
    expect(errorOf(['rpc'])).toMatchObject({ ...shape, exitCode: 2 });
    expect(errorOf(['frobnicate'])).toMatchObject({
      ...shape,
      code: 'unknown_command',
      exitCode: 2,
    });
    const loggedOut = printed.filter((p) => p.args.join(' ') === 'token status').at(-1)!;
    expect(JSON.parse(loggedOut.stdout).error).toMatchObject({ ...shape, exitCode: 3 });
    // Field names agree across commands and with the library's status().
    const status = JSON.parse(printed.find((p) => p.args.join(' ') === 'token status')!.stdout);
    expect(status).toMatchObject({ profile: 'default', loggedIn: true, usable: true });
    const list = JSON.parse(printed.find((p) => p.args.join(' ') === 'profile list')!.stdout);
    expect(list).toEqual([expect.objectContaining({ profile: 'default', loggedIn: true })]);
    const show = JSON.parse(printed.find((p) => p.args.join(' ') === 'profile show')!.stdout);
    expect(show).toMatchObject({
      profile: 'default',
      tokens: { profile: 'default', usable: true },
    });
    const completion = printed.find((p) => p.args[0] === 'completion')!;
    expect(oneDocument(completion.stdout)).toMatchObject({
      shell: 'bash',
      script: expect.stringContaining('dasvc __complete'),
    });
  });

  it('a JSON-RPC error has the same members in the library as under --json', async () => {
    const dir = freshConfigDir();
    await runCli(loginArgs(mock.url, 'crm'), dir, { env: browserEnv() });
    // A contact the logged-in user does not own: the service answers a JSON-RPC error.
    const cli = await runCli(['--json', 'rpc', 'crm', 'contacts.get', 'id:=3'], dir);
    expect(cli.code).toBe(1);
    const printed = (oneDocument(cli.stdout) as { error: Record<string, unknown> }).error;
    const thrown = await dasvc({ configDir: dir, env: {} })
      .rpc('crm', 'contacts.get', { id: 3 })
      .then(
        () => undefined,
        (error: unknown) => error,
      );
    expect(thrown).toBeInstanceOf(DasvcError);
    const error = thrown as DasvcError;
    expect(printed.rpc).toEqual({ code: -32004, message: expect.any(String), data: { id: 3 } });
    expect(error.rpc).toEqual(printed.rpc);
    expect({ code: error.code, exitCode: error.exitCode, message: error.message }).toEqual({
      code: printed.code,
      exitCode: printed.exitCode,
      message: printed.message,
    });
  });
});
