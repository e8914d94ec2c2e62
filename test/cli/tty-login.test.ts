// `dasvc login` on a real pseudo-terminal (SPEC §3): with no browser to open, or one that never
// comes back, the redirect URL pasted into the terminal completes the login, as with --no-browser.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  authorizationUrlIn,
  BIN,
  freshConfigDir,
  loginArgs,
  STANDIN_BROWSER,
  startMockForCli,
} from '../helpers/cli.js';
import { redirectAfterConsent } from '../helpers/cli-browser.mjs';
import { onTerminal, SCRIPT } from '../helpers/terminal.js';

/** A mock that shows its consent page: nothing completes the login but the person. */
const mock = startMockForCli({});

function loginOnTerminal(args: string[], env: Record<string, string>) {
  const dir = freshConfigDir();
  // No DISPLAY, WAYLAND_DISPLAY or BROWSER unless given; no CI, so prompts are allowed.
  const terminal = onTerminal([process.execPath, BIN, ...args], {
    PATH: process.env.PATH ?? '',
    HOME: dir,
    DASVC_CONFIG_DIR: dir,
    ...env,
  });
  return { terminal, dir };
}

const storedToken = (dir: string) =>
  (
    JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')) as {
      profiles: Record<string, { tokens?: { accessToken: string } }>;
    }
  ).profiles.default?.tokens?.accessToken;

describe.skipIf(!existsSync(SCRIPT) && !process.env.CI)('dasvc login on a terminal', () => {
  it.each([
    [
      'no display and no browser command',
      {},
      'Could not open a browser (no display: neither DISPLAY nor WAYLAND_DISPLAY is set); open the URL above yourself, then paste the address your browser was sent to and press Enter:',
    ],
    [
      'a browser command that fails',
      { BROWSER: '/bin/false' },
      'Could not open a browser (the BROWSER command /bin/false exited with 1); open the URL above yourself, then paste the address your browser was sent to and press Enter:',
    ],
    [
      'a browser that opens and never comes back',
      { BROWSER: STANDIN_BROWSER, STANDIN_MODE: 'none' },
      'Waiting for the browser; or paste the address your browser was sent to and press Enter:',
    ],
  ])('%s: the pasted redirect URL completes the login', async (_name, env, said) => {
    const { terminal, dir } = loginOnTerminal(loginArgs(mock.url), env);
    const screen = await terminal.waitFor([said]);
    const url = authorizationUrlIn(screen);
    expect(url, screen).toBeDefined();
    // The person opens the URL elsewhere, approves, and pastes the address the browser ended on.
    const location = await redirectAfterConsent(url!);
    terminal.type(`${location}\r`);
    const { code } = await terminal.exited;
    const after = terminal.fresh();
    expect(code, after).toBe(0);
    // The one success line: the summary (no second "Logged in" line on stderr).
    expect(after).toContain('profile default · scope crm wiki · access token expires');
    expect(storedToken(dir)).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it('answers typed at a prompt are not read as pasted redirects; the browser completes it', async () => {
    const args = loginArgs(mock.url).filter(
      (a, i, all) => a !== '--scope' && all[i - 1] !== '--scope',
    );
    const { terminal, dir } = loginOnTerminal(args, { BROWSER: STANDIN_BROWSER });
    await terminal.waitFor(['Scope']);
    terminal.type('crm\r');
    const { code, screen } = await terminal.exited;
    expect(code, screen).toBe(0);
    expect(screen).not.toContain('not a redirect URL');
    expect(storedToken(dir)).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });
});
