import { existsSync, mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Locator, Page } from 'playwright-core';
import { Pool } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockServer, type MockServer } from '../../src/mock/index.js';
import { CHROMIUM_PATH as executable, useSharedChromium } from '../helpers/chromium-server.js';
import { ROOT as root } from '../helpers/cli.js';
import {
  basic,
  DEMO,
  exchange,
  getCode,
  mint,
  postForm,
  refresh,
  revoke,
  rpc,
  tokenWorks,
} from '../helpers/mock-client.js';

// SPEC §8: the dashboard in a real headless Chromium: live journal, one line a request with the
// whole of it on demand (mouse and keyboard), the filter's count, JSON-RPC errors in a 200 shown
// as errors, Revoke by mouse and by keyboard, Advance, faults, Reset, and user input as text.

const haveChromium = existsSync(executable);
if (!haveChromium && !process.env.CI) {
  console.warn(`\n*** SKIPPING the dashboard browser test: ${executable} is missing.\n`);
}

const XSS_CLIENT = '<img src=x onerror="window.__xss=1">';
const XSS_METHOD = '<script>window.__xss=2</script>';
const XSS_PARAM = '<svg onload="window.__xss=3">';

/** A query string too long for one line of the journal. */
const LONG_QUERY = new URLSearchParams({
  filter: 'created>2030-01-01 and owner in (alice, bob, carol, dave) and status != archived',
  fields: 'id,name,email,phone,company,address,tags,notes,created,updated,owner',
  sort: '-updated,name',
  page: '3',
}).toString();

/** A batch whose body is too long for one line. */
const BATCH = Array.from({ length: 8 }, (_, i) => ({
  jsonrpc: '2.0',
  method: i === 5 ? 'contacts.get' : 'contacts.list',
  ...(i === 5 ? { params: { id: 'five' } } : { params: {} }),
  id: i + 1,
}));

/**
 * 24 requests of every kind, one at a time (the journal numbers them 1 to 24): a login, calls
 * accepted and refused, JSON-RPC errors in 200s, a long query string, a long body. The seqs of
 * the ones the test looks at.
 */
async function traffic(base: string) {
  const drain = async (answer: Promise<Response>) => (await answer).arrayBuffer();
  const seqs = { list: 0, batch: 0, longQuery: 0 };
  let seq = 0;
  const code = await getCode(base); // 1, 2: the consent page and the approval
  seq += 2;
  // The replay below revokes these (RFC 6749 §4.1.2): the calls use a minted token.
  const exchanged = (await (await exchange(base, code)).json()) as {
    access_token: string;
    refresh_token: string;
  };
  seq += 1;
  await drain(exchange(base, code)); // replay: invalid_grant
  seq += 1;
  const bob = await mint(base, 'bob', 'crm', 'other-client');
  const alice = await mint(base, 'alice', 'crm wiki');
  const call = (token: string, instance: string, body: unknown) => {
    seq += 1;
    return drain(rpc(base, instance, token, body));
  };
  const list = (id: number) => ({ jsonrpc: '2.0', method: 'contacts.list', id });
  const getOne = (id: number) => ({
    jsonrpc: '2.0',
    method: 'contacts.get',
    params: { id: 1 },
    id,
  });
  for (let i = 0; i < 3; i++) await call(bob.access_token, 'crm', list(i));
  await call(alice.access_token, 'wiki', { jsonrpc: '2.0', method: 'pages.list', id: 3 });
  await call(alice.access_token, 'crm', getOne(4));
  await call(alice.access_token, 'crm', list(5));
  seqs.list = seq;
  await call('expired-token', 'crm', list(6));
  await call(bob.access_token, 'wiki', { jsonrpc: '2.0', method: 'pages.list', id: 7 });
  await drain(fetch(`${base}/webservice/json/crm`));
  const renewed = await refresh(base, alice.refresh_token);
  const { access_token: token } = (await renewed.json()) as { access_token: string };
  await drain(
    postForm(
      `${base}/webservice/authorize`,
      { grant_type: 'authorization_code', code: 'not-a-code' },
      { authorization: basic(DEMO.id, 'wrong-secret') },
    ),
  );
  await drain(revoke(base, exchanged.refresh_token, 'refresh_token'));
  await drain(fetch(`${base}/webservice/authorize/?response_type=code&client_id=nobody&scope=crm`));
  await drain(fetch(`${base}/webservice/json/crm/contacts?${LONG_QUERY}`));
  seq += 6;
  seqs.longQuery = seq;
  await call(token, 'crm', { jsonrpc: '2.0', method: 'contacts.nope', id: 8 });
  await call(token, 'crm', BATCH);
  seqs.batch = seq;
  await call(bob.access_token, 'crm', getOne(9));
  await call(token, 'crm', getOne(10));
  await call(bob.access_token, 'crm', list(11));
  await call(token, 'wiki', { jsonrpc: '2.0', method: 'pages.list', id: 12 });
  expect(seq).toBe(24);
  return seqs;
}

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
    page = await browser.newPage({ viewport: { width: 1280, height: 800 }, colorScheme: 'light' });
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
    page.locator('#journal tr.entry', { hasText: text }).first().waitFor({ state: 'visible' });

  const grantRow = (user: string) => page.locator('#grants tr', { hasText: user });

  it('shows 25 requests one line each at 1280×800, the whole of one by keyboard; screenshots', async () => {
    const seqs = await traffic(mock.url);
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
    await page.goto(`${mock.url}/_mock/`);
    await row('invalid_grant: code already used; its tokens were revoked');
    await row('invalid_token: unknown access token (never issued by this mock');
    expect(await grantRow('bob').first().textContent()).toContain('other-client');
    expect(await grantRow('bob').first().textContent()).toMatch(/in (59 min|1 h)/);

    // The 25th request appears without reload.
    await (await fetch(`${mock.url}/webservice/json/nowhere`, { method: 'POST' })).arrayBuffer();
    await row('not_found: unknown instance "nowhere"');
    await page.locator('#journal-count', { hasText: '(25 shown, journal keeps 1000)' }).waitFor();

    // Dense: every row is one line, long query strings and bodies cut, and at least 12 rows lie
    // wholly inside the window and the journal's scroll box.
    const layout = await page.evaluate(() => {
      const box = document.querySelector('#journal-panel .scroll')!.getBoundingClientRect();
      const head = document.querySelector('#journal-table thead')!.getBoundingClientRect();
      const rows = [...document.querySelectorAll<HTMLElement>('#journal tr.entry')];
      const inView = rows.filter((r) => {
        const b = r.getBoundingClientRect();
        return b.top >= head.bottom - 0.5 && b.bottom <= Math.min(innerHeight, box.bottom) + 0.5;
      });
      const cut = [...document.querySelectorAll<HTMLElement>('#journal td.req')].filter(
        (td) => td.scrollWidth > td.clientWidth,
      );
      return {
        inView: inView.length,
        heights: [...new Set(rows.map((r) => Math.round(r.getBoundingClientRect().height)))],
        cut: cut.map((td) => td.textContent),
        pageScrolls: document.documentElement.scrollWidth > innerWidth,
      };
    });
    expect(layout.inView).toBeGreaterThanOrEqual(12);
    expect(layout.heights).toHaveLength(1);
    expect(layout.heights[0]).toBeLessThan(32);
    expect(layout.cut.some((text) => text!.includes(LONG_QUERY))).toBe(true);
    expect(layout.cut.some((text) => text!.includes(JSON.stringify(BATCH).slice(0, 200)))).toBe(
      true,
    );
    expect(layout.pageScrolls).toBe(false);

    // A JSON-RPC error answered with HTTP 200 shows its code, in the colour of a refusal (4xx).
    const nope = page.locator('#journal tr.entry', { hasText: 'contacts.nope' });
    const ok = page.locator(`#journal tr.entry[data-seq="${seqs.list}"] td.status`);
    expect(await nope.locator('td.status').textContent()).toBe('-32601');
    expect(await ok.textContent()).toBe('200');
    const colour = (cell: Locator) => cell.evaluate((td) => getComputedStyle(td).color);
    expect(await colour(nope.locator('td.status'))).not.toBe(await colour(ok));
    expect(await colour(nope.locator('td.status'))).toBe(
      await colour(
        page
          .locator('#journal tr.entry', { hasText: 'invalid_token' })
          .first()
          .locator('td.status'),
      ),
    );
    const batch = page.locator(`#journal tr.entry[data-seq="${seqs.batch}"]`);
    expect(await batch.locator('td.status').textContent()).toBe('-32602');

    // By keyboard: from the Find box, Tab reaches the journal (one stop), arrows move to the
    // row of the long query, Enter shows the whole of it, Escape folds it again.
    await page.locator('#journal-find').focus();
    await page.keyboard.press('Tab');
    await page.keyboard.press('Tab');
    const focusedSeq = () =>
      page.evaluate(() => document.activeElement?.closest('tr')?.getAttribute('data-seq') ?? null);
    expect(await focusedSeq()).toBe('25');
    for (let i = 0; i < 25 && (await focusedSeq()) !== String(seqs.longQuery); i++) {
      await page.keyboard.press('ArrowDown');
    }
    expect(await focusedSeq()).toBe(String(seqs.longQuery));
    await page.keyboard.press('Enter');
    const detail = page.locator(`#request-${seqs.longQuery}`);
    await detail.waitFor({ state: 'visible' });
    expect(await detail.textContent()).toContain(`?${LONG_QUERY}`);
    expect(
      await page
        .locator(`#journal tr.entry[data-seq="${seqs.longQuery}"] .toggle`)
        .getAttribute('aria-expanded'),
    ).toBe('true');
    await page.keyboard.press('Escape');
    await detail.waitFor({ state: 'hidden' });
    await page.keyboard.press('Enter');
    await detail.waitFor({ state: 'visible' });
    // The long body, whole, by mouse.
    await batch.locator('td.rpc').click();
    const batchDetail = page.locator(`#request-${seqs.batch}`);
    await batchDetail.waitFor({ state: 'visible' });
    expect(await batchDetail.textContent()).toContain(JSON.stringify(BATCH));

    // The heading counts what the filter shows.
    const journal = (await (await fetch(`${mock.url}/_mock/journal`)).json()) as {
      entries: { code?: unknown; rpc?: string[]; status: number }[];
    };
    const refused = journal.entries.filter((e) => e.code !== undefined).length;
    await page.getByLabel('Show', { exact: true }).selectOption('refused');
    await page.locator('#journal-count', { hasText: `(${refused} of 25 shown,` }).waitFor();
    expect(await page.locator('#journal tr.entry:visible').count()).toBe(refused);
    await page.getByLabel('Show', { exact: true }).selectOption('all');
    await page.getByLabel('Find', { exact: true }).fill('contacts.get');
    const withGet = journal.entries.filter((e) => e.rpc?.includes('contacts.get')).length;
    await page.locator('#journal-count', { hasText: `(${withGet} of 25 shown,` }).waitFor();
    // Find looks at what a request is, not at when it came: 404 finds the 404s.
    await page.getByLabel('Find', { exact: true }).fill('404');
    const notFound = journal.entries.filter((e) => e.status === 404).length;
    await page.locator('#journal-count', { hasText: `(${notFound} of 25 shown,` }).waitFor();
    await page.getByLabel('Find', { exact: true }).fill('');
    await page.locator('#journal-count', { hasText: '(25 shown,' }).waitFor();

    // The docs' pictures are refreshed with UPDATE_SCREENSHOTS=1 (a plain run keeps the tree
    // clean): every row on its line at 1280×800, and the batch open at 1920×1080.
    await page.locator(`#journal tr.entry[data-seq="${seqs.longQuery}"]`).click();
    await detail.waitFor({ state: 'hidden' });
    await page.locator(`#journal tr.entry[data-seq="${seqs.batch}"]`).click();
    await batchDetail.waitFor({ state: 'hidden' });
    await page.mouse.move(0, 0);
    const shots = process.env.UPDATE_SCREENSHOTS ? join(root, 'docs') : join(work, 'shots');
    mkdirSync(shots, { recursive: true });
    for (const [width, height, scheme] of [
      [1280, 800, 'light'],
      [1920, 1080, 'dark'],
    ] as const) {
      const file = join(shots, `dashboard-${width}x${height}.png`);
      rmSync(file, { force: true });
      await page.setViewportSize({ width, height });
      await page.emulateMedia({ colorScheme: scheme });
      await page.locator(`#journal tr.entry[data-seq="${seqs.batch}"] .toggle`).focus();
      if (width === 1920) await page.keyboard.press('Enter');
      const bg = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
      // Dark is dark and light is light: the scheme really switches the palette.
      const [r] = bg.match(/\d+/g)!.map(Number);
      expect(scheme === 'dark' ? r! < 80 : r! > 200, bg).toBe(true);
      await page.evaluate(() => document.querySelector('#journal-panel .scroll')!.scrollTo(0, 0));
      await page.screenshot({ path: file });
      expect(statSync(file).size).toBeGreaterThan(10_000);
    }
    await page.emulateMedia({ colorScheme: 'light' });
    await page.setViewportSize({ width: 1280, height: 800 });
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
    // Its body, opened in full, is text too.
    await page.locator('#journal tr.entry', { hasText: `unknown param "${XSS_PARAM}"` }).click();
    await page
      .locator('#journal tr.detail', { hasText: `{"${XSS_PARAM.replace(/"/g, '\\"')}":1}` })
      .waitFor();
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
    // Over a few kept-alive connections: global fetch costs several times the CPU per request.
    const pool = new Pool(mock.url, { connections: 4 });
    try {
      for (let sent = 0; sent < 1010; sent += 101) {
        await Promise.all(
          Array.from({ length: 101 }, async (_, i) => {
            const answer = await pool.request({ path: `/nowhere-${sent + i}`, method: 'GET' });
            await answer.body.dump();
          }),
        );
      }
    } finally {
      await pool.close();
    }
    await page.reload();
    await page.locator('#journal-count', { hasText: '(1000 shown, journal keeps 1000)' }).waitFor();
    expect(await page.locator('#journal tr.entry').count()).toBe(1000);
  });
});
