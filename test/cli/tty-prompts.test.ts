// dasvc on a real pseudo-terminal (SPEC §2, §3): Ctrl-C at any prompt exits 130 with nothing more
// printed; init asks again after a bad profile name; login and refresh say their summary once.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  BIN,
  freshConfigDir,
  loginArgs,
  mintTokens,
  STANDIN_BROWSER,
  startMockForCli,
} from '../helpers/cli.js';
import { onTerminal, SCRIPT } from '../helpers/terminal.js';

function dasvcOnTerminal(args: string[]) {
  const dir = freshConfigDir();
  // No CI variable: prompts are allowed only on a terminal outside CI.
  const terminal = onTerminal([process.execPath, BIN, ...args], {
    PATH: process.env.PATH ?? '',
    HOME: dir,
    DASVC_CONFIG_DIR: dir,
  });
  return { terminal, dir };
}

describe.skipIf(!existsSync(SCRIPT) && !process.env.CI)('prompts on a terminal', () => {
  it.each([
    ['init', ['init'], 'Profile name'],
    ['a login prompt for a missing setting', ['login'], 'Base URL'],
  ])('Ctrl-C at %s exits 130 and prints nothing more', async (_name, args, prompt) => {
    const { terminal } = dasvcOnTerminal(args);
    await terminal.waitFor([prompt]);
    terminal.type('\x03');
    const { code } = await terminal.exited;
    const after = terminal.fresh();
    expect(code, after).toBe(130);
    expect(after).not.toMatch(/dasvc:|error|Error|at /);
  });

  // Regression: the prompts were coloured under --no-color (NO_COLOR and TERM=dumb worked).
  it('--no-color: the prompts are not coloured either', async () => {
    const { terminal } = dasvcOnTerminal(['--no-color', 'init']);
    const shown = await terminal.waitFor(['Profile name']);
    terminal.type('\x03');
    await terminal.exited;
    const colour = new RegExp(`${String.fromCharCode(27)}\\[(3\\d|1|22|39)m`);
    expect(shown).not.toMatch(colour);
  });

  it('init says why an answer is refused and asks again, the refused answer cleared', async () => {
    const { terminal, dir } = dasvcOnTerminal(['init']);
    await terminal.waitFor(['Profile name']);
    terminal.type('no spaces allowed\r');
    // Said under the question, which stays open for another answer: typed afresh, not appended.
    await terminal.waitFor(['not a usable profile name']);
    terminal.type('work\r');
    await terminal.waitFor(['Base URL']);
    terminal.type('ftp://127.0.0.1:9\r');
    await terminal.waitFor(['must be http or https']);
    terminal.type('http://127.0.0.1:9\r');
    for (const [prompt, answer] of [
      ['Client id', 'demo-client'],
      ['Client secret', 'demo-secret'],
      ['Scope', 'crm'],
      ['OAuth parameters', ''],
    ]) {
      await terminal.waitFor([prompt!]);
      terminal.type(`${answer}\r`);
    }
    const { code, screen } = await terminal.exited;
    expect(code, screen).toBe(0);
    const config = JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')) as {
      profiles: Record<string, { scope: string; baseUrl: string }>;
    };
    expect(Object.keys(config.profiles)).toEqual(['work']);
    expect(config.profiles.work!.baseUrl).toBe('http://127.0.0.1:9');
  });
});

describe.skipIf(!existsSync(SCRIPT) && !process.env.CI)('summaries on a terminal', () => {
  const mock = startMockForCli();

  it('login and token refresh say their summary once', async () => {
    const dir = freshConfigDir();
    const env = { PATH: process.env.PATH ?? '', HOME: dir, DASVC_CONFIG_DIR: dir };
    const login = onTerminal([process.execPath, BIN, ...loginArgs(mock.url, 'crm')], {
      ...env,
      BROWSER: `${process.execPath} ${STANDIN_BROWSER}`,
    });
    const loggedIn = await login.exited;
    expect(loggedIn.code, loggedIn.screen).toBe(0);
    expect(loggedIn.screen.match(/access token expires/g), loggedIn.screen).toHaveLength(1);
    const refresh = await onTerminal([process.execPath, BIN, 'token', 'refresh'], env).exited;
    expect(refresh.code, refresh.screen).toBe(0);
    expect(refresh.screen.match(/expires/g), refresh.screen).toHaveLength(1);
  });

  it('rpc and token revoke with a token alone ask for what is missing (SPEC §2: … > prompt > error)', async () => {
    const dir = freshConfigDir();
    const env = { PATH: process.env.PATH ?? '', HOME: dir, DASVC_CONFIG_DIR: dir };
    const { access_token: token } = await mintTokens(mock.url, 'alice', 'crm');
    const rpc = onTerminal(
      [process.execPath, BIN, 'rpc', 'crm', 'contacts.list', '--token', token],
      env,
    );
    await rpc.waitFor(['Base URL']);
    rpc.type(`${mock.url}\r`);
    const called = await rpc.exited;
    expect(called.code, called.screen).toBe(0);
    expect(called.screen).toContain('Ada Lovelace');
    const revoke = onTerminal(
      [process.execPath, BIN, 'token', 'revoke', '--token', token, '--base-url', mock.url],
      env,
    );
    for (const [prompt, answer] of [
      ['Client id', 'demo-client'],
      ['Client secret', 'demo-secret'],
    ]) {
      await revoke.waitFor([prompt!]);
      revoke.type(`${answer}\r`);
    }
    const revoked = await revoke.exited;
    expect(revoked.code, revoked.screen).toBe(0);
    expect(revoked.screen).not.toContain('demo-secret');
    // It was revoked at the service: the API refuses it now.
    const after = await fetch(`${mock.url}/webservice/json/crm`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}` },
      body: '{"jsonrpc":"2.0","method":"contacts.list","id":1}',
    });
    expect(after.status).toBe(401);
  });
});
