import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  authorizationUrlIn,
  browserEnv,
  clearJournal,
  control,
  expectNoLeaksAfterAll,
  freshConfigDir,
  journalEntries,
  loginArgs,
  runCli,
  spawnCli,
  startMockForCli,
} from '../helpers/cli.js';
import { redirectAfterConsent } from '../helpers/cli-browser.mjs';

const auto = startMockForCli();
const manual = startMockForCli({});
expectNoLeaksAfterAll();

/**
 * The stand-in browser's log once it holds `text`. runCli runs the browser in this process but, as
 * a real one, does not wait for it: it logs after reading the loopback's page, which may be after
 * the CLI has returned. Waiting for the line (rather than reading the file at once) keeps these
 * tests from racing it; a line that never comes is the test's timeout.
 */
async function browserLog(file: string, text: string): Promise<string> {
  for (;;) {
    let content = '';
    try {
      content = readFileSync(file, 'utf8');
    } catch {
      // not written yet
    }
    if (content.includes(text)) return content;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

function readConfig(dir: string): {
  activeProfile?: string;
  profiles: Record<string, Record<string, unknown>>;
} {
  return JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8'));
}

describe('dasvc login', () => {
  it('logs in through the browser, stores the profile (0600) and never prints the tokens', async () => {
    const dir = freshConfigDir();
    const log = join(dir, 'browser.log');
    const result = await runCli([...loginArgs(manual.url), '--json'], dir, {
      env: browserEnv('follow', log),
    });
    expect(result.stderr).toContain('/webservice/authorize/?');
    expect(result.code, result.stderr).toBe(0);
    const summary = JSON.parse(result.stdout);
    expect(summary).toMatchObject({ profile: 'default', scope: 'crm wiki', refreshable: true });
    expect(summary.expiresIn).toBeGreaterThan(3500);
    // With --json the result is the document, and the person reads the summary on stderr.
    expect(result.stderr).toMatch(
      /✓ Logged in: profile default · scope crm wiki · access token expires \S+Z \(in (59m \d+s|1h)\)\n/,
    );
    expect(await browserLog(log, 'callback 200 success-page')).toContain(
      'callback 200 success-page',
    );
    const profile = readConfig(dir).profiles.default!;
    expect(profile).toMatchObject({
      baseUrl: manual.url,
      clientId: 'demo-client',
      clientSecret: 'demo-secret',
      scope: 'crm wiki',
      params: 'query',
    });
    expect(profile.endpoints).toMatchObject({
      token: `${manual.url}/webservice/authorize`,
      api: `${manual.url}/webservice/json/{scope}`,
    });
    const tokens = profile.tokens as {
      accessToken: string;
      refreshToken: string;
      expiresAt: number;
    };
    expect(tokens.expiresAt).toBeGreaterThan(Date.now() + 3_500_000);
    expect(result.stdout + result.stderr).not.toContain(tokens.accessToken);
    expect(statSync(join(dir, 'config.json')).mode & 0o777).toBe(0o600);
    // Later commands need no flags.
    const rpc = await runCli(['rpc', 'crm', 'contacts.list'], dir);
    expect(rpc.code, rpc.stderr).toBe(0);
    expect(JSON.parse(rpc.stdout)[0]).toMatchObject({ id: 1 });
  });

  it('sends PKCE S256 and redirect_uri by default, and leaves PKCE out with --no-pkce', async () => {
    const dir = freshConfigDir();
    const withPkce = await runCli(loginArgs(manual.url), dir, { env: browserEnv() });
    expect(withPkce.code).toBe(0);
    const url = new URL(authorizationUrlIn(withPkce.stderr)!);
    expect(url.searchParams.get('code_challenge_method')).toBe('S256');
    expect(url.searchParams.get('state')!.length).toBeGreaterThanOrEqual(43);
    expect(url.searchParams.get('redirect_uri')).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/);
    const without = await runCli([...loginArgs(manual.url), '--no-pkce'], dir, {
      env: browserEnv(),
    });
    expect(without.code).toBe(0);
    expect(new URL(authorizationUrlIn(without.stderr)!).searchParams.has('code_challenge')).toBe(
      false,
    );
  });

  it('answers 404 on other paths (favicon) without ending the wait', async () => {
    const dir = freshConfigDir();
    const log = join(dir, 'browser.log');
    const result = await runCli(loginArgs(manual.url), dir, { env: browserEnv('favicon', log) });
    expect(result.code, result.stderr).toBe(0);
    const lines = await browserLog(log, 'callback 200 success-page');
    expect(lines).toContain('favicon 404');
    expect(lines).toContain('callback 200 success-page');
  });

  it('refuses a forged state: exit 3, nothing exchanged, nothing stored', async () => {
    const dir = freshConfigDir();
    await clearJournal(manual.url);
    const log = join(dir, 'browser.log');
    const result = await runCli(loginArgs(manual.url), dir, { env: browserEnv('forge', log) });
    expect(result.code).toBe(3);
    expect(result.stderr).toMatch(/state/);
    expect(await browserLog(log, 'callback 400 error-page')).toContain('callback 400 error-page');
    const journal = await journalEntries(manual.url);
    expect(journal.some((e) => e.path === '/webservice/authorize' && e.method === 'POST')).toBe(
      false,
    );
    expect(() => readConfig(dir)).toThrow();
  });

  it('reports a denial (error=access_denied) with exit 3 and stores nothing', async () => {
    const dir = freshConfigDir();
    const log = join(dir, 'browser.log');
    const result = await runCli(loginArgs(manual.url), dir, { env: browserEnv('deny', log) });
    expect(result.code).toBe(3);
    expect(result.stderr).toContain('access_denied');
    expect(await browserLog(log, 'error-page')).toContain('error-page');
    expect(() => readConfig(dir)).toThrow();
  });

  it('times out with a clear message (exit 4) and closes the listener', async () => {
    const dir = freshConfigDir();
    const result = await runCli([...loginArgs(manual.url), '--timeout', '0.5'], dir, {
      env: browserEnv('none'),
    });
    expect(result.code).toBe(4);
    // The time given, not rounded to a second it never waited.
    expect(result.stderr).toMatch(/login timed out: no authorization arrived within 0\.5 s/);
    const redirect = new URL(authorizationUrlIn(result.stderr)!).searchParams.get('redirect_uri')!;
    await expect(fetch(redirect)).rejects.toThrow();
    // Written as a person reads it, not as a binary fraction prints.
    const short = await runCli([...loginArgs(manual.url), '--timeout', '13ms'], dir, {
      env: browserEnv('none'),
    });
    expect(short.stderr).toMatch(/no authorization arrived within 0\.013 s\n/);
  });

  it('with --no-browser, accepts the redirect URL pasted on stdin (after a junk line)', async () => {
    const dir = freshConfigDir();
    const child = spawnCli([...loginArgs(manual.url), '--no-browser'], dir, {
      BROWSER: '/nonexistent-browser-must-not-run',
    });
    let stderr = '';
    let stdout = '';
    let sent = false;
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      const url = authorizationUrlIn(stderr);
      if (sent || !url || !stderr.includes('paste')) return;
      sent = true;
      // What a human on a remote machine does: approve, copy the address it ends on, paste it.
      void redirectAfterConsent(url).then((location) => {
        child.stdin.write('this is not a url\n');
        child.stdin.write(`${location}\n`);
      });
    });
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(code, stderr).toBe(0);
    expect(stderr).toContain('not a redirect URL');
    // The result line on stdout, the narration on stderr, and no second success line there.
    expect(stderr).not.toContain('Logged in');
    expect(stdout).toMatch(
      /^profile default · scope crm wiki · access token expires \S+Z \(in (59m \d+s|1h)\)\n$/,
    );
    const { accessToken } = readConfig(dir).profiles.default!.tokens as { accessToken: string };
    expect(accessToken).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const call = await runCli(['rpc', 'crm', 'contacts.list'], dir);
    expect(call.code, call.stderr).toBe(0);
  });

  it('with --no-browser, reads a redirect URL that was on stdin before the prompt', async () => {
    // Piped in at once (a script, a fast paste): kept, not lost while the login starts. This one
    // carries a forged state, so the answer is exit 3 at once; a lost line would time out (4).
    const result = await runCli(
      [...loginArgs(manual.url), '--no-browser', '--timeout', '10'],
      freshConfigDir(),
      { input: 'http://127.0.0.1:1/callback?state=forged&code=abc\n' },
    );
    expect(result.code, result.stderr).toBe(3);
    expect(result.stderr).toMatch(/state/);
  });

  it('closes the listener and exits 130 on Ctrl-C', async () => {
    const dir = freshConfigDir();
    const child = spawnCli([...loginArgs(manual.url), '--no-browser'], dir);
    let stderr = '';
    const printed = new Promise<void>((resolve) =>
      child.stderr.on('data', (chunk: Buffer) => {
        stderr += chunk.toString();
        if (authorizationUrlIn(stderr) && stderr.includes('paste')) resolve();
      }),
    );
    await printed;
    const redirect = new URL(authorizationUrlIn(stderr)!).searchParams.get('redirect_uri')!;
    child.kill('SIGINT');
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(code).toBe(130);
    expect(stderr).toMatch(/interrupted/);
    await expect(fetch(redirect)).rejects.toThrow();
  });

  it('uses --port for the loopback and reports a busy port as a usage error', async () => {
    const dir = freshConfigDir();
    const blocker = (await import('node:net')).createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const port = (blocker.address() as { port: number }).port;
    const busy = await runCli([...loginArgs(manual.url), '--port', String(port)], dir, {
      env: browserEnv(),
    });
    expect(busy.code).toBe(2);
    expect(busy.stderr).toContain(`127.0.0.1:${port}`);
    await new Promise<void>((resolve) => blocker.close(() => resolve()));
    const ok = await runCli([...loginArgs(manual.url), '--port', String(port)], dir, {
      env: browserEnv(),
    });
    expect(ok.code, ok.stderr).toBe(0);
    expect(authorizationUrlIn(ok.stderr)).toContain(
      encodeURIComponent(`http://127.0.0.1:${port}/callback`),
    );
  });

  it('names the flag and the env var of a missing setting (exit 2)', async () => {
    const dir = freshConfigDir();
    const result = await runCli(['login', '--client-id', 'demo-client'], dir);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('missing base URL: pass --base-url or set DASVC_BASE_URL');
    const secret = await runCli(
      ['login', '--base-url', auto.url, '--client-id', 'x', '--scope', 'crm'],
      dir,
    );
    expect(secret.code).toBe(2);
    expect(secret.stderr).toContain('--client-secret');
    expect(secret.stderr).toContain('DASVC_CLIENT_SECRET');
  });

  it('takes settings from the environment', async () => {
    const dir = freshConfigDir();
    const result = await runCli(['login'], dir, {
      env: {
        ...browserEnv(),
        DASVC_BASE_URL: `${auto.url}/`,
        DASVC_CLIENT_ID: 'demo-client',
        DASVC_CLIENT_SECRET: 'demo-secret',
        DASVC_SCOPE: 'crm',
        DASVC_PROFILE: 'ci',
      },
    });
    expect(result.code, result.stderr).toBe(0);
    const config = readConfig(dir);
    expect(config.profiles.ci).toMatchObject({ baseUrl: auto.url, scope: 'crm' });
  });

  it('regression: logging in never changes the active profile (only profile use does)', async () => {
    const dir = freshConfigDir();
    const work = await runCli([...loginArgs(auto.url), '--profile', 'work'], dir, {
      env: browserEnv(),
    });
    expect(work.code, work.stderr).toBe(0);
    expect(work.stdout).toMatch(/^profile work · /);
    expect(readConfig(dir).activeProfile).toBeUndefined();
    const status = await runCli(['token', 'status'], dir);
    expect(status.code).toBe(3);
    expect(status.stderr).toContain('profile default');
    expect((await runCli(['profile', 'use', 'work'], dir)).code).toBe(0);
    expect(readConfig(dir).activeProfile).toBe('work');
    const other = await runCli([...loginArgs(auto.url), '--profile', 'other'], dir, {
      env: browserEnv(),
    });
    expect(other.code, other.stderr).toBe(0);
    expect(readConfig(dir).activeProfile).toBe('work');
  });

  it('regression: a config file of the wrong shape is exit 2 naming it (it crashed), untouched', async () => {
    const dir = freshConfigDir();
    const file = join(dir, 'config.json');
    for (const text of [
      '{"profiles":{"default":{"tokens":"x"}}}',
      '{"profiles":{"default":{"tokens":{"accessToken":5,"refreshToken":"r","expiresAt":1,"obtainedAt":1}}}}',
      '{"profiles":{"default":"x"}}',
      '{"profiles":[]}',
      '{"profiles":{"default":{"baseUrl":7}}}',
      '{"activeProfile":"__proto__"}',
      '[]',
    ]) {
      writeFileSync(file, text, { mode: 0o600 });
      for (const args of [
        ['rpc', 'crm', 'contacts.list'],
        ['token', 'status'],
        ['profile', 'list'],
        loginArgs(auto.url),
      ]) {
        const result = await runCli(args, dir, { env: browserEnv() });
        expect(result.code, `${text}: ${args.join(' ')}: ${result.stderr}`).toBe(2);
        expect(result.stderr).toContain(file);
        expect(result.stderr).not.toMatch(/unexpected error|\n\s+at /);
      }
      expect(readFileSync(file, 'utf8')).toBe(text);
    }
  });

  it('refuses a corrupt config file (exit 2) naming it, and leaves it untouched', async () => {
    const dir = freshConfigDir();
    const file = join(dir, 'config.json');
    writeFileSync(file, '{"profiles": {"default": {"baseUrl": ', { mode: 0o600 });
    for (const args of [
      loginArgs(auto.url),
      ['rpc', 'crm', 'contacts.list'],
      ['token', 'status'],
      ['profile', 'list'],
      ['logout'],
    ]) {
      const result = await runCli(args, dir, { env: browserEnv() });
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stderr).toContain(file);
    }
    expect(readFileSync(file, 'utf8')).toBe('{"profiles": {"default": {"baseUrl": ');
  });
});

/**
 * Once the authorization URL is printed: the address the consent ends on, with another state, as
 * a person would paste it (a forged redirect).
 */
function forgedRedirect(stderr: string): Promise<string> | undefined {
  const url = authorizationUrlIn(stderr);
  return url
    ? redirectAfterConsent(url).then((at) => `${at!.replace(/state=[^&]+/, 'state=forged')}\n`)
    : undefined;
}

describe('dasvc login asks the service once before waiting for anyone', () => {
  /** The mock's authorization-endpoint requests: the probe and, when waited for, the browser's. */
  const authorizeRequests = async (base: string) =>
    (await journalEntries(base)).filter((e) => e.path.startsWith('/webservice/authorize'));

  it('an auto-approving service: the URL is printed and the browser still opens it', async () => {
    const dir = freshConfigDir();
    const log = join(dir, 'browser.log');
    await clearJournal(auto.url);
    const result = await runCli(loginArgs(auto.url), dir, { env: browserEnv('follow', log) });
    expect(result.code, result.stderr).toBe(0);
    const url = authorizationUrlIn(result.stderr);
    expect(url).toBeDefined();
    // The browser command ran with the printed URL, and its redirect completed the login.
    const visited = readFileSync(log, 'utf8').split('\n');
    expect(visited[0]).toBe(`opened ${url}`);
    expect(visited.some((line) => line.startsWith('callback 200'))).toBe(true);
    expect(result.stderr).not.toContain('approved at once');
    // The probe, the browser, the exchange: the probe's own code is left to expire.
    expect((await authorizeRequests(auto.url)).map((e) => `${e.method} ${e.status}`)).toEqual([
      'GET 302',
      'GET 302',
      'POST 200',
    ]);
    const call = await runCli(['rpc', 'crm', 'contacts.list'], dir);
    expect(call.code, call.stderr).toBe(0);
  });

  it('an auto-approving service and no browser to open: the probe’s answer completes it', async () => {
    const dir = freshConfigDir();
    await clearJournal(auto.url);
    const result = await runCli(loginArgs(auto.url), dir, { env: { BROWSER: '/bin/false' } });
    expect(result.code, result.stderr).toBe(0);
    expect(authorizationUrlIn(result.stderr)).toBeDefined();
    // stdin at its end: nothing left to paste.
    expect(result.stderr).toContain(
      'Could not open a browser (the BROWSER command /bin/false exited with 1); open the URL above yourself, then paste',
    );
    expect(result.stderr).toContain('The service approved at once, without a consent page.');
    expect((await authorizeRequests(auto.url)).map((e) => `${e.method} ${e.status}`)).toEqual([
      'GET 302',
      'POST 200',
    ]);
  });

  it('a browser that fails at an auto-approving service: a piped forged redirect is refused too', async () => {
    const dir = freshConfigDir();
    await clearJournal(auto.url);
    const result = await runCli(loginArgs(auto.url), dir, {
      env: { BROWSER: '/bin/false' },
      // Login then does what --no-browser does: the paste is read before the service's approval.
      inputWhen: (stderr) =>
        stderr.includes('Could not open a browser') ? forgedRedirect(stderr) : undefined,
    });
    expect(result.code, result.stderr).toBe(3);
    expect(result.stderr).toContain(
      'dasvc: the redirect carried a state that does not match this login; refused (nothing was exchanged)',
    );
    expect((await authorizeRequests(auto.url)).map((e) => e.method)).not.toContain('POST');
  });

  it('--no-browser at an auto-approving service: a pasted forged redirect is refused (exit 3)', async () => {
    const dir = freshConfigDir();
    await clearJournal(auto.url);
    const result = await runCli([...loginArgs(auto.url), '--no-browser'], dir, {
      // The person opens the printed URL, and pastes where it ended with another state.
      inputWhen: forgedRedirect,
    });
    expect(result.code, result.stderr).toBe(3);
    expect(result.stderr).toContain(
      'dasvc: the redirect carried a state that does not match this login; refused (nothing was exchanged)',
    );
    expect((await authorizeRequests(auto.url)).map((e) => e.method)).not.toContain('POST');
  });

  it('--no-browser at an auto-approving service with nothing to paste: the probe’s answer completes it', async () => {
    const dir = freshConfigDir();
    const result = await runCli([...loginArgs(auto.url), '--no-browser'], dir, { input: '' });
    expect(result.code, result.stderr).toBe(0);
    expect(authorizationUrlIn(result.stderr)).toBeDefined();
    expect(result.stderr).toContain('The service approved at once, without a consent page.');
  });

  it('an unknown client: exit 3 at once with the error page’s words, no browser, nothing stored', async () => {
    const dir = freshConfigDir();
    const log = join(dir, 'browser.log');
    const args = loginArgs(manual.url).map((a) => (a === 'demo-client' ? 'no-such-client' : a));
    // The default --timeout (300 s) is never waited out: the test's own bound is far shorter.
    const result = await runCli(args, dir, { env: browserEnv('follow', log) });
    expect(result.code, result.stderr).toBe(3);
    expect(result.stderr).toContain(
      'dasvc: the authorization endpoint refused the request (HTTP 400): Authorization error · invalid_client: unknown client_id "no-such-client"',
    );
    expect(result.stderr).not.toMatch(/Open this URL|timed out/);
    expect(existsSync(log)).toBe(false);
    expect(() => readConfig(dir)).toThrow();
    const json = await runCli(['--json', ...args], dir, { env: browserEnv() });
    expect(JSON.parse(json.stdout).error).toMatchObject({ code: 'invalid_client', exitCode: 3 });
  });

  it('an authorization endpoint answering 500: exit 1 with the service’s message', async () => {
    const dir = freshConfigDir();
    await control(manual.url, 'faults', {
      kind: 'error',
      status: 500,
      count: 1,
      path: '/webservice/authorize/',
    });
    const result = await runCli(loginArgs(manual.url), dir, { env: browserEnv() });
    expect(result.code, result.stderr).toBe(1);
    expect(result.stderr).toContain(
      'dasvc: the authorization endpoint failed (HTTP 500): server_error (injected fault (POST /_mock/faults))',
    );
  });

  it('nothing listening at the authorization endpoint: exit 4 at once', async () => {
    const closed = (await import('node:net')).createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as { port: number }).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const result = await runCli(loginArgs(`http://127.0.0.1:${port}`), freshConfigDir(), {
      env: browserEnv(),
    });
    expect(result.code, result.stderr).toBe(4);
    expect(result.stderr).toMatch(/refused/);
    expect(result.stderr).not.toContain('Open this URL');
  });

  it('a redirect carrying error=invalid_scope: exit 3 with the service’s reason, nothing exchanged', async () => {
    const dir = freshConfigDir();
    const log = join(dir, 'browser.log');
    await clearJournal(manual.url);
    const result = await runCli(loginArgs(manual.url, 'crm nosuch'), dir, {
      env: browserEnv('follow', log),
    });
    expect(result.code, result.stderr).toBe(3);
    expect(result.stderr).toContain(
      'dasvc: authorization failed: invalid_scope (unknown instance "nosuch" in scope)\nhint: ask only for instances this user may use: dasvc login --scope "<instances>"\n',
    );
    expect((await authorizeRequests(manual.url)).map((e) => `${e.method} ${e.status}`)).toEqual([
      'GET 302',
    ]);
    expect(existsSync(log)).toBe(false);
  });

  it('a browser command that fails: said, and a browser on this machine still completes it', async () => {
    const dir = freshConfigDir();
    let visited: Promise<unknown> | undefined;
    const result = await runCli(loginArgs(manual.url), dir, {
      env: { BROWSER: '/bin/false' },
      // The person opens the printed URL themselves once told (the loopback is on this machine).
      inputWhen: (stderr) => {
        const url = authorizationUrlIn(stderr);
        if (url && stderr.includes('Could not open a browser'))
          visited ??= redirectAfterConsent(url).then((location) => fetch(location!));
        return undefined;
      },
    });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain(
      'Could not open a browser (the BROWSER command /bin/false exited with 1); open the URL above yourself, then paste the address your browser was sent to and press Enter:',
    );
    await visited;
  });

  it('a browser command that fails, stdin a pipe: a pasted redirect completes it', async () => {
    const dir = freshConfigDir();
    const result = await runCli(loginArgs(manual.url), dir, {
      env: { BROWSER: '/bin/false' },
      // The person opens the printed URL, approves, and pastes where the browser ended.
      inputWhen: (stderr) => {
        const url = authorizationUrlIn(stderr);
        return url && stderr.includes('Could not open a browser')
          ? redirectAfterConsent(url).then((at) => `${at}\n`)
          : undefined;
      },
    });
    expect(result.code, result.stderr).toBe(0);
    expect(readConfig(dir).profiles.default?.tokens).toBeDefined();
  });
});
