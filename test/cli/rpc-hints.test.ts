// What `dasvc rpc` tells the user when a call fails, as printed by the built CLI (SPEC §3).
import { rmSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import {
  expectNoLeaksAfterAll,
  freshConfigDir,
  mintTokens,
  runCli,
  startMockForCli,
} from '../helpers/cli.js';

const mock = startMockForCli();
expectNoLeaksAfterAll();
const dir = freshConfigDir();
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('dasvc rpc hints', () => {
  it('an unknown method names the nearest ones from rpc.discover', async () => {
    const { access_token } = await mintTokens(mock.url, 'alice', 'crm');
    const env = { DASVC_TOKEN: access_token, DASVC_BASE_URL: mock.url };
    const typo = await runCli(['rpc', 'crm', 'contact.list'], dir, { env });
    expect(typo.code).toBe(1);
    expect(typo.stdout).toBe('');
    expect(typo.stderr).toMatch(/^error -32601: .*\n/);
    expect(typo.stderr).toContain(
      'hint: did you mean contacts.list? (dasvc rpc crm rpc.discover lists them all)\n',
    );
    // No close spelling: the nearest names all the same, never a bare error.
    const unrelated = await runCli(['rpc', 'crm', 'weather.today'], dir, { env });
    expect(unrelated.code).toBe(1);
    expect(unrelated.stderr).toContain(
      'hint: the nearest methods of crm: contacts.get, contacts.list (dasvc rpc crm rpc.discover lists them all)\n',
    );
  });
});
