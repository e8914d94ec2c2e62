// Exit codes end to end (SPEC §4): one real process per code, the way a script sees them. The
// other CLI tests run the same main in-process (test/helpers/cli.ts `runCli`); these prove that
// what main returns is what the process exits with, and that stdout stays clean on failures.
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  expectNoLeaksAfterAll,
  freshConfigDir,
  loggedInBeforeAll,
  runCliProcess,
  startMockForCli,
} from '../helpers/cli.js';

const mock = startMockForCli();
expectNoLeaksAfterAll();
// The login before them is not what they prove: it runs in-process.
const configDir = loggedInBeforeAll(mock, 'crm');

describe('exit codes of a real process', () => {
  it('0: a call that succeeds, its result on stdout', async () => {
    const result = await runCliProcess(['rpc', 'crm', 'contacts.list'], configDir());
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toHaveLength(2);
  });

  it('1: a JSON-RPC error from the service', async () => {
    const result = await runCliProcess(['rpc', 'crm', 'contacts.get', 'id=1'], configDir());
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^error -32602: /m);
    expect(result.stdout).toBe('');
  });

  it('2: a bad flag value, before any work', async () => {
    const result = await runCliProcess(
      ['rpc', 'crm', 'contacts.list', '--params', 'bogus'],
      configDir(),
    );
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--params');
    expect(result.stdout).toBe('');
  });

  it('2: a config file that is not a regular file (a FIFO) is refused at once, never waited on', async () => {
    const dir = freshConfigDir();
    execFileSync('mkfifo', [join(dir, 'config.json')]);
    const result = await runCliProcess(['profile', 'list'], dir);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      `cannot read config file ${join(dir, 'config.json')}: not a regular file`,
    );
    expect(result.stdout).toBe('');
  });

  it('3: a scope that was not granted', async () => {
    const result = await runCliProcess(['rpc', 'wiki', 'pages.list'], configDir());
    expect(result.code, result.stderr).toBe(3);
    expect(result.stdout).toBe('');
  });

  it('4: a service that cannot be reached, --json gives the one error document', async () => {
    const result = await runCliProcess(
      ['--json', 'rpc', 'crm', 'contacts.list', '--token', 'x', '--base-url', 'http://127.0.0.1:9'],
      freshConfigDir(),
    );
    expect(result.code).toBe(4);
    expect(JSON.parse(result.stdout)).toMatchObject({ error: { exitCode: 4 } });
  });
});
