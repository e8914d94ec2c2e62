import { existsSync, mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockServer, type MockServer } from '../../src/mock/index.js';
import { CHROMIUM_PATH as executable, useSharedChromium } from '../helpers/chromium-server.js';
import { ROOT as root } from '../helpers/cli.js';
import { exchange, getCode, mint, rpc, tokenWorks } from '../helpers/mock-client.js';

// SPEC §8: the dashboard in a real headless Chromium: live journal, reasons, Revoke by mouse and
// by keyboard, Advance, faults, Reset, and user input shown as text.

const haveChromium = existsSync(executable);
if (!haveChromium && !process.env.CI) {
  console.warn(`\n*** SKIPPING the dashboard browser test: ${executable} is missing.\n`);
}

const XSS_CLIENT = '<img src=x onerror="window.__xss=1">';
const XSS_METHOD = '<script>window.__xss=2</script>';
const XSS_PARAM = '<svg onload="window.__xss=3">';

describe.skipIf(!haveChromium && !process.env.CI)('dashboard in a real Chromium', () => {
  let mock: MockServer;
  let browser: Browser;
  let page: Page;
  let work: string;
  const shared = useSharedChromium();

  beforeAll(async () => {
    mock = await startMockServer({ port: 0 });
    work = mkdtempSync(join(tmpdir(), 'dasvc-dashboard-'));
    // This file's own connection: closing it ends its pages, not the run's browser.
    browser = await shared.connect();
    page = await browser.newPage({ viewport: { width: 1440, height: 860 }, colorScheme: 'light' });
    // A failed wait says which one, before the test's own timeout.
    page.setDefaultTimeout(15_000);
  });

  afterAll(async () => {
    await browser?.close();
    await mock?.close();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  /** Waits until the journal shows a row whose text contains `text`. */
  const row = (text: string) =>
    page.locator('#journal tr', { hasText: text }).first().waitFor({ state: 'visible' });

  const grantRow = (user: string) => page.locator('#grants tr', { hasText: user });

  it('shows requests live with their reasons, and grants with expiry; screenshots light and dark', async () => {
    // Traffic worth looking at: a login, a call, a refused replay, a wrong secret.
    const code = await getCode(mock.url);
    const alice = (await (await exchange(mock.url, code)).json()) as { access_token: string };
    await (
      await rpc(mock.url, 'crm', alice.access_token, {
        jsonrpc: '2.0',
        method: 'contacts.list',
        id: 1,
      })
    ).arrayBuffer();
    await (await exchange(mock.url, code)).arrayBuffer();
    await (
      await rpc(mock.url, 'crm', 'expired-token', {
        jsonrpc: '2.0',
        method: 'contacts.list',
        id: 1,
      })
    ).arrayBuffer();
    await mint(mock.url, 'bob', 'crm', 'other-client');
    await mint(mock.url, 'alice', 'crm wiki');

    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
    await page.goto(`${mock.url}/_mock/`);
    await row('invalid_grant: code already used; its tokens were revoked');
    await row('invalid_token: unknown access token (never issued by this mock');
    expect(await grantRow('bob').textContent()).toContain('other-client');
    expect(await grantRow('bob').textContent()).toMatch(/in (59 min|1 h)/);

    // A new request appears without reload.
    await (await fetch(`${mock.url}/webservice/json/nowhere`, { method: 'POST' })).arrayBuffer();
    await row('not_found: unknown instance "nowhere"');

    // The README's pictures are refreshed with UPDATE_SCREENSHOTS=1; a plain run keeps the tree clean.
    const shots = process.env.UPDATE_SCREENSHOTS ? join(root, 'docs') : join(work, 'shots');
    mkdirSync(shots, { recursive: true });
    for (const scheme of ['light', 'dark'] as const) {
      const file = join(shots, `dashboard-${scheme}.png`);
      rmSync(file, { force: true });
      await page.emulateMedia({ colorScheme: scheme });
      const bg = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
      // Dark is dark and light is light: the scheme really switches the palette.
      const [r] = bg.match(/\d+/g)!.map(Number);
      expect(scheme === 'dark' ? r! < 80 : r! > 200, bg).toBe(true);
      await page.screenshot({ path: file, fullPage: true });
      expect(statSync(file).size).toBeGreaterThan(10_000);
    }
    await page.emulateMedia({ colorScheme: 'light' });
    expect(errors).toEqual([]);
  });

  it('shows client ids, methods and params as text, never as markup', async () => {
    const bad = await fetch(
      `${mock.url}/webservice/authorize?${new URLSearchParams({ client_id: XSS_CLIENT, client_secret: 'x', grant_type: 'authorization_code' })}`,
      { method: 'POST' },
    );
    expect(bad.status).toBe(401);
    const t = await mint(mock.url, 'alice', 'crm');
    const call = (body: unknown) => rpc(mock.url, 'crm', t.access_token, body);
    await (await call({ jsonrpc: '2.0', method: XSS_METHOD, id: 1 })).arrayBuffer();
    await (
      await call({ jsonrpc: '2.0', method: 'contacts.get', params: { [XSS_PARAM]: 1 }, id: 2 })
    ).arrayBuffer();
    await row(`unknown client "${XSS_CLIENT}"`);
    await row(`no method "${XSS_METHOD}"`);
    await row(`unknown param "${XSS_PARAM}"`);
    const journal = await page.locator('#journal').textContent();
    expect(journal).toContain(XSS_CLIENT);
    expect(journal).toContain(XSS_METHOD);
    expect(await page.evaluate(() => (window as { __xss?: number }).__xss)).toBeUndefined();
    expect(await page.locator('#journal img, #journal script, #journal svg').count()).toBe(0);
  });

  it('revokes a grant by button, and another by keyboard; their tokens get 401', async () => {
    await page.reload();
    const bob = await mint(mock.url, 'bob', 'crm');
    const carol = await mint(mock.url, 'alice', 'wiki', 'other-client');
    expect(await tokenWorks(mock.url, bob.access_token)).toBe(true);
    // The two newest grants (GET /_mock/grants lists newest first).
    const listed = (await (await fetch(`${mock.url}/_mock/grants`)).json()) as {
      grants: { id: number }[];
    };
    const [carolId, bobId] = listed.grants.map((g) => String(g.id));

    // By mouse: the button of bob's new grant, found by its accessible name.
    await page
      .getByRole('button', { name: `Revoke grant ${bobId} of bob for demo-client` })
      .click();
    await page.locator(`#grants button[data-grant="${bobId}"]`).waitFor({ state: 'detached' });
    await page
      .getByRole('status')
      .filter({ hasText: `Revoked grant ${bobId}` })
      .waitFor();
    expect(await tokenWorks(mock.url, bob.access_token)).toBe(false);

    // By keyboard: Tab from the top of the page until the Revoke button of the other grant has
    // focus (a bounded walk), with a visible focus ring, then Enter.
    const id = carolId!;
    await page.locator(`#grants button[data-grant="${id}"]`).waitFor();
    await page.locator('body').focus();
    let reached = false;
    for (let i = 0; i < 200 && !reached; i++) {
      await page.keyboard.press('Tab');
      reached = await page.evaluate(
        (g) => document.activeElement?.getAttribute('data-grant') === g,
        id,
      );
    }
    expect(reached).toBe(true);
    const outline = await page.evaluate(
      () => getComputedStyle(document.activeElement!).outlineStyle,
    );
    expect(outline).not.toBe('none');
    // The table is rebuilt when something happens (here a new grant): the focus stays put.
    await mint(mock.url, 'bob', 'crm');
    const newest = (await (await fetch(`${mock.url}/_mock/grants`)).json()) as {
      grants: { id: number }[];
    };
    await page.locator(`#grants button[data-grant="${newest.grants[0]!.id}"]`).waitFor();
    const focusedGrant = () =>
      page.evaluate(() => document.activeElement?.getAttribute('data-grant') ?? null);
    expect(await focusedGrant()).toBe(id);
    await page.keyboard.press('Enter');
    await page.locator(`#grants button[data-grant="${id}"]`).waitFor({ state: 'detached' });
    expect(await tokenWorks(mock.url, carol.access_token)).toBe(false);
    // Its row gone, the focus moves to another grant's button, never back to the page.
    expect(await focusedGrant()).not.toBeNull();
  });

  it('advances the clock: a token expires', async () => {
    const t = await mint(mock.url, 'alice', 'crm');
    expect(await tokenWorks(mock.url, t.access_token)).toBe(true);
    await page.getByLabel('Advance by').fill('2h');
    await page.getByRole('button', { name: 'Advance' }).click();
    await page.locator('#clock-offset', { hasText: '+7200 s' }).waitFor();
    expect(await tokenWorks(mock.url, t.access_token)).toBe(false);
    await page.locator('#grants-empty').waitFor({ state: 'visible' });
  });

  it('adds a fault, then Reset forgets faults, journal and clock', async () => {
    await page.getByLabel('Kind').selectOption('error');
    await page.getByLabel('Next N requests').fill('3');
    await page.getByLabel('Status').fill('503');
    await page.getByRole('button', { name: 'Add fault' }).click();
    await page.locator('#faults li', { hasText: 'error 503 for the next 3 requests' }).waitFor();
    const injected = await fetch(`${mock.url}/webservice/authorize`, { method: 'POST' });
    expect(injected.status).toBe(503);
    await row('server_error: injected fault');

    await page.getByRole('button', { name: 'Reset mock' }).click();
    await page.getByRole('status').filter({ hasText: 'Mock reset' }).waitFor();
    await page.waitForFunction(() => document.querySelectorAll('#journal tr').length === 0);
    await page.locator('#faults-empty').waitFor({ state: 'visible' });
    expect(await page.locator('#clock-offset').textContent()).toBe('');
    expect(
      ((await (await fetch(`${mock.url}/_mock/faults`)).json()) as { faults: [] }).faults,
    ).toEqual([]);
    // The quirks section reads GET /_mock/quirks: none in force.
    expect(await page.locator('#quirks-empty').textContent()).toContain('None');
  });

  it('shows as many rows as the journal keeps: 1000 of 1010 requests', async () => {
    for (let sent = 0; sent < 1010; sent += 101) {
      await Promise.all(
        Array.from({ length: 101 }, async (_, i) => {
          await (await fetch(`${mock.url}/nowhere-${sent + i}`)).arrayBuffer();
        }),
      );
    }
    await page.reload();
    await page.locator('#journal-count', { hasText: '(1000 shown, journal keeps 1000)' }).waitFor();
    expect(await page.locator('#journal tr').count()).toBe(1000);
  });
});
