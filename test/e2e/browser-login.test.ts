import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockServer } from '../../src/mock/index.js';
import { CHROMIUM_PATH as chromium, useSharedChromium } from '../helpers/chromium-server.js';
import { CHROMIUM_BROWSER, loginArgs, ROOT as root, runCli } from '../helpers/cli.js';

const haveChromium = existsSync(chromium);

// In CI the browser test must run: a missing Chromium is a failure there, a loud skip elsewhere.
if (!haveChromium && !process.env.CI) {
  console.warn(
    `\n*** SKIPPING the real-browser login test: ${chromium} is missing.` +
      `\n*** Install it with: apt-get update && apt-get install -y chromium\n`,
  );
}

/** The browser script's log once it says it is done (the test's own timeout bounds the wait). */
async function browserFinished(logFile: string): Promise<string> {
  const read = () => (existsSync(logFile) ? readFileSync(logFile, 'utf8') : '');
  while (!read().includes('browser done')) await new Promise((resolve) => setTimeout(resolve, 25));
  return read();
}

describe.skipIf(!haveChromium && !process.env.CI)('login in a real headless Chromium', () => {
  let mock: { url: string; close(): Promise<void> };
  let work: string;
  const browser = useSharedChromium();

  beforeAll(async () => {
    mock = await startMockServer({ port: 0 });
    work = mkdtempSync(join(tmpdir(), 'dasvc-e2e-'));
  });

  afterAll(async () => {
    await mock?.close();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  function env(decision: 'approve' | 'deny', shots?: string): Record<string, string> {
    return {
      DASVC_BROWSER: CHROMIUM_BROWSER,
      E2E_USER: 'alice',
      E2E_DECISION: decision,
      E2E_LOG: join(work, `${decision}.log`),
      ...(shots ? { E2E_SHOTS: shots } : {}),
    };
  }

  const dasvc = (args: string[], e: Record<string, string>) =>
    runCli(args, join(work, `config-${e.E2E_DECISION}`), {
      env: { ...e, CHROMIUM_PATH: chromium, E2E_BROWSER_WS: browser.wsEndpoint },
      timeoutMs: 60_000,
    });

  const login = (e: Record<string, string>) =>
    dasvc([...loginArgs(mock.url, 'crm'), '--timeout', '45'], e);

  it('approves on the consent page, then calls the API with the stored token', async () => {
    // The docs' pictures are refreshed with UPDATE_SCREENSHOTS=1; a plain run keeps the tree clean.
    const shots = process.env.UPDATE_SCREENSHOTS ? join(root, 'docs') : join(work, 'shots');
    mkdirSync(shots, { recursive: true });
    // The committed pictures must not pass for new ones.
    for (const png of ['consent.png', 'callback.png']) rmSync(join(shots, png), { force: true });
    const e = env('approve', shots);
    const result = await login(e);
    // dasvc exits as soon as the code is exchanged; the browser may still be taking its screenshot.
    const browserLog = await browserFinished(e.E2E_LOG!);
    expect(result.code, `${result.stderr}\n${browserLog}`).toBe(0);
    expect(browserLog).toMatch(/consent page: .*demo-client/);
    expect(browserLog).toMatch(/callback page: .*(success|signed in|logged in)/i);
    expect(existsSync(join(shots, 'consent.png'))).toBe(true);
    expect(existsSync(join(shots, 'callback.png'))).toBe(true);

    const rpc = await dasvc(['rpc', 'crm', 'contacts.list'], e);
    expect(rpc.code, rpc.stderr).toBe(0);
    const contacts = JSON.parse(rpc.stdout) as unknown[];
    expect(Array.isArray(contacts)).toBe(true);
    expect(contacts.length).toBeGreaterThan(0);
  });

  it('clicks Deny and gets exit 3 with the reason, storing nothing', async () => {
    const e = env('deny');
    const result = await login(e);
    expect(result.code, result.stderr).toBe(3);
    expect(result.stderr).toMatch(/access_denied/);
    const status = await dasvc(['token', 'status'], e);
    expect(status.code).toBe(3);
  });

  it('runs `dasvc demo --browser` through the real consent page', async () => {
    const e = env('approve');
    const demo = await dasvc(['demo', '--browser'], { ...e, E2E_LOG: join(work, 'demo.log') });
    expect(demo.code, demo.stderr).toBe(0);
    expect(demo.stdout).toContain('The consent page will open in your browser');
    // Step 2 summarises what the browser sent, from the embedded mock's journal (SPEC §3: each
    // step with its HTTP exchange): the consent page, then the approval redirected back.
    const step2 = demo.stdout.slice(demo.stdout.indexOf('2. Authorization request'));
    expect(step2).toMatch(/→ GET \/webservice\/authorize\/\n[^\n]*\n {3}← 200/);
    expect(step2).toMatch(/→ POST \/webservice\/authorize\/\n(?:[^\n]*\n)? {3}← 302/);
    expect(demo.stdout).toContain('Ada Lovelace, Grace Hopper');
    expect(demo.stdout).toContain('{"result":"Token revoked"}');
    expect(await browserFinished(join(work, 'demo.log'))).toMatch(/callback page: .*logged in/i);
  });
});
