import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockServer } from '../../src/mock/index.js';
import { browserEnv, CHROMIUM_BROWSER, runCli } from '../helpers/cli.js';
import { checkArgs } from '../helpers/check-mock.js';
import { CHROMIUM_PATH as chromium, useSharedChromium } from '../helpers/chromium-server.js';
const haveChromium = existsSync(chromium);

/** One testcase of a JUnit file, as Chromium's XML parser reads it. */
interface ParsedCase {
  name: string | null;
  failure: string | null;
  skipped: string | null;
}

/** Parses XML in Chromium (DOMParser, application/xml): a parse error is reported, not repaired. */
async function parseJunit(
  browser: Browser,
  xml: string,
): Promise<{ error: string | null; cases: ParsedCase[] }> {
  try {
    const page = await browser.newPage();
    return await page.evaluate((text) => {
      const doc = new DOMParser().parseFromString(text, 'application/xml');
      const error = doc.querySelector('parsererror')?.textContent ?? null;
      const cases = [...doc.querySelectorAll('testsuite > testcase')].map((c) => ({
        name: c.getAttribute('name'),
        failure: c.querySelector('failure')?.textContent ?? null,
        skipped: c.querySelector('skipped')?.getAttribute('message') ?? null,
      }));
      return { error, cases };
    }, xml);
  } finally {
    await browser.close();
  }
}

describe.skipIf(!haveChromium && !process.env.CI)('dasvc check with a real Chromium', () => {
  let work: string;
  const shared = useSharedChromium();
  beforeAll(() => {
    work = mkdtempSync(join(tmpdir(), 'dasvc-e2e-check-'));
  });
  afterAll(() => {
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('--junit writes XML that a real parser reads: failures carry the evidence, skips the why', async () => {
    const mock = await startMockServer({
      port: 0,
      autoApprove: 'alice',
      quirks: { revokeUnknownToken: 'error', errorBody: 'text' },
    });
    const file = join(work, 'check.xml');
    try {
      const result = await runCli([...checkArgs(mock.url), '--junit', file], join(work, 'junit'), {
        env: browserEnv(),
        timeoutMs: 60_000,
      });
      expect(result.code, result.stderr).toBe(1);
    } finally {
      await mock.close();
    }
    const parsed = await parseJunit(await shared.connect(), readFileSync(file, 'utf8'));
    expect(parsed.error).toBeNull();
    expect(parsed.cases).toHaveLength(25);
    const byName = new Map(parsed.cases.map((c) => [c.name, c]));
    expect(byName.get('revoke.unknown-token')?.failure).toContain('expected: ');
    expect(byName.get('revoke.unknown-token')?.failure).toContain('< HTTP 400');
    expect(byName.get('errors.shape')?.failure).toContain('text/plain');
    expect(byName.get('refresh.after-expiry')?.skipped).toMatch(/--max-wait/);
    expect(byName.get('token.members')?.failure).toBeNull();
    expect(byName.get('token.members')?.skipped).toBeNull();
  });

  it('authorizes through the real consent page', async () => {
    const mock = await startMockServer({ port: 0 });
    const log = join(work, 'browser.log');
    try {
      const result = await runCli(
        [
          ...checkArgs(mock.url, 'crm'),
          '--only',
          'redirect.code-and-state,token.members,jsonrpc.discover',
          '--timeout',
          '45',
        ],
        join(work, 'browser'),
        {
          env: {
            DASVC_BROWSER: CHROMIUM_BROWSER,
            CHROMIUM_PATH: chromium,
            E2E_BROWSER_WS: shared.wsEndpoint,
            E2E_USER: 'alice',
            E2E_LOG: log,
          },
          timeoutMs: 60_000,
        },
      );
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout).toMatch(/^ok\s+redirect\.code-and-state/m);
      expect(result.stdout).toMatch(/^ok\s+jsonrpc\.discover/m);
      expect(readFileSync(log, 'utf8')).toContain('consent page:');
    } finally {
      await mock.close();
    }
  });
});
