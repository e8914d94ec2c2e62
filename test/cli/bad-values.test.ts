// Every flag and variable value is checked before any work — exit 2 naming the flag or
// the variable, no browser started, no request sent. (The settings of SPEC §2 in every command:
// client-core.test.ts; here the values of the commands' own flags, through the built CLI.)
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  browserEnv,
  clearJournal,
  freshConfigDir,
  journalEntries,
  loginArgs,
  runCli,
  startMockForCli,
} from '../helpers/cli.js';
import { scratchDir } from '../helpers/scratch.js';

const mock = startMockForCli();
const CASES: [name: string, args: () => string[], env: Record<string, string>, named: string][] = [
  ['login --timeout 0', () => [...loginArgs(mock.url), '--timeout', '0'], {}, '--timeout'],
  ['login --timeout -5', () => [...loginArgs(mock.url), '--timeout=-5'], {}, '--timeout'],
  ['login --timeout soon', () => [...loginArgs(mock.url), '--timeout', 'soon'], {}, '--timeout'],
  ['login --timeout 30d', () => [...loginArgs(mock.url), '--timeout', '30d'], {}, '--timeout'],
  ['login --port 70000', () => [...loginArgs(mock.url), '--port', '70000'], {}, '--port'],
  [
    'login --refresh-margin x',
    () => [...loginArgs(mock.url), '--refresh-margin', 'x'],
    {},
    '--refresh-margin',
  ],
  [
    'login DASVC_PARAMS=bogus',
    () => loginArgs(mock.url),
    { DASVC_PARAMS: 'bogus' },
    'DASVC_PARAMS',
  ],
  [
    'rpc DASVC_PARAMS=bogus',
    () => ['rpc', 'crm', 'contacts.list', '--base-url', mock.url, '--token', 'some-token-1234'],
    { DASVC_PARAMS: 'bogus' },
    'DASVC_PARAMS',
  ],
  [
    'rpc --id x',
    () => [
      'rpc',
      'crm',
      'contacts.list',
      '--base-url',
      mock.url,
      '--token',
      'some-token-1234',
      '--id',
      'x',
    ],
    {},
    '--id',
  ],
  [
    'token revoke --hint x',
    () => [
      'token',
      'revoke',
      '--base-url',
      mock.url,
      '--client-id',
      'demo-client',
      '--client-secret',
      'demo-secret',
      '--token',
      'some-token-1234',
      '--hint',
      'x',
    ],
    {},
    '--hint',
  ],
  ['mock --port x', () => ['mock', '--port', 'x'], {}, '--port'],
  ['mock --access-ttl x', () => ['mock', '--port', '0', '--access-ttl', 'x'], {}, '--access-ttl'],
];

describe('a bad value is refused before any work (exit 2, naming it)', () => {
  it.each(CASES)('%s', async (_name, args, env, named) => {
    const dir = freshConfigDir();
    const work = scratchDir('dasvc-browser-');
    const browserLog = join(work, 'browser.log');
    await clearJournal(mock.url);
    const result = await runCli(args(), dir, {
      env: { ...browserEnv('follow', browserLog), ...env },
      timeoutMs: 10_000,
    });
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toContain(named);
    expect(result.stdout).toBe('');
    expect(existsSync(browserLog), 'a browser was started').toBe(false);
    expect(await journalEntries(mock.url)).toEqual([]);
  });
});
