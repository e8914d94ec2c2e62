// On a terminal dasvc behaves differently: results are pretty-printed and missing settings are
// asked for (SPEC §2, §3). util-linux `script` gives the CLI a real pseudo-terminal.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  BIN,
  freshConfigDir,
  mintTokens,
  STANDIN_BROWSER,
  startMockForCli,
} from '../helpers/cli.js';
import { tracked } from '../helpers/children.js';
import { SCRIPT } from '../helpers/terminal.js';
const mock = startMockForCli();

/** Runs dasvc on a pseudo-terminal; `answers` are typed when their prompt appears. */
function onTerminal(
  args: string[],
  env: Record<string, string>,
  answers: [prompt: string, answer: string][] = [],
): Promise<{ code: number | null; screen: string }> {
  const command = [process.execPath, BIN, ...args].map((a) => `'${a}'`).join(' ');
  // No timer ends it: a hang is the test's timeout, and the file's end kills what is left.
  const child = tracked(
    spawn(SCRIPT, ['-qec', command, '/dev/null'], {
      // No CI variable: prompts are allowed only on a terminal outside CI.
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? '/tmp',
        TERM: 'xterm',
        ...env,
      },
      stdio: ['pipe', 'pipe', 'pipe'],
    }),
  );
  let screen = '';
  const pending = [...answers];
  child.stdout.on('data', (chunk: Buffer) => {
    screen += chunk.toString();
    const next = pending[0];
    if (next && screen.includes(next[0])) {
      pending.shift();
      child.stdin.write(`${next[1]}\r`);
    }
  });
  return new Promise((resolve) => {
    child.on('close', (code) => {
      child.stdin.destroy();
      resolve({ code, screen });
    });
  });
}

// util-linux's `script` is on every Debian system; in CI its absence is a failure, not a skip.
describe.skipIf(!existsSync(SCRIPT) && !process.env.CI)('dasvc on a terminal', () => {
  it('has a pseudo-terminal to run on', () => {
    expect(existsSync(SCRIPT), `${SCRIPT} is required in CI`).toBe(true);
  });

  it('pretty-prints the result of rpc', async () => {
    const { access_token } = await mintTokens(mock.url, 'alice', 'crm');
    const run = await onTerminal(
      ['rpc', 'crm', 'contacts.list', '--token', access_token, '--base-url', mock.url],
      { DASVC_CONFIG_DIR: freshConfigDir() },
    );
    expect(run.code, run.screen).toBe(0);
    expect(run.screen).toContain('[\r\n  {\r\n    "id": 1,\r\n    "name": "Ada Lovelace"');
  });

  it('asks for missing settings, masks the secret, and logs in', async () => {
    const dir = freshConfigDir();
    const run = await onTerminal(['login'], { DASVC_CONFIG_DIR: dir, BROWSER: STANDIN_BROWSER }, [
      ['Base URL', mock.url],
      ['Client id', 'demo-client'],
      ['Client secret', 'demo-secret'],
      ['Scope', 'crm'],
    ]);
    expect(run.code, run.screen).toBe(0);
    expect(run.screen).toContain('***********');
    expect(run.screen).not.toContain('demo-secret');
    expect(run.screen).toMatch(/profile default · scope crm · access token expires/);
    const config = JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')) as {
      profiles: Record<
        string,
        { baseUrl: string; clientId: string; scope: string; tokens: Record<string, string> }
      >;
    };
    const { accessToken, refreshToken } = config.profiles.default!.tokens;
    expect(accessToken).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(run.screen).not.toContain(accessToken);
    expect(run.screen).not.toContain(refreshToken);
    expect(config.profiles.default).toMatchObject({
      baseUrl: mock.url,
      clientId: 'demo-client',
      scope: 'crm',
    });
  });

  it('init writes a profile from the answers, and login then needs no flags', async () => {
    const dir = freshConfigDir();
    const init = await onTerminal(['init'], { DASVC_CONFIG_DIR: dir }, [
      ['Profile name', 'work'],
      ['Base URL', `${mock.url}/`],
      ['Client id', 'demo-client'],
      ['Client secret', 'demo-secret'],
      // Regression: init kept the spacing as typed, login normalised it.
      ['Scope', ' crm   wiki '],
      ['OAuth parameters', ''],
    ]);
    expect(init.code, init.screen).toBe(0);
    expect(init.screen).not.toContain('demo-secret');
    const config = JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')) as {
      profiles: Record<string, Record<string, string>>;
    };
    expect(config.profiles.work).toMatchObject({
      baseUrl: mock.url,
      clientId: 'demo-client',
      clientSecret: 'demo-secret',
      scope: 'crm wiki',
      params: 'query',
    });
    const login = await onTerminal(['login', '--profile', 'work'], {
      DASVC_CONFIG_DIR: dir,
      BROWSER: STANDIN_BROWSER,
    });
    expect(login.code, login.screen).toBe(0);
    expect(login.screen).toMatch(/profile work · scope crm wiki · /);
  });
});
