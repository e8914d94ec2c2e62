#!/usr/bin/env node
// A real browser for `dasvc login`: named by DASVC_BROWSER, run with the authorization URL as its
// one argument. It drives Debian's Chromium through playwright-core: opens the consent page, picks
// a user, clicks Approve or Deny, and waits for the loopback callback page.
//   E2E_USER      user to pick on the consent page (default alice)
//   E2E_DECISION  approve | deny (default approve)
//   E2E_SHOTS     folder to save consent.png and callback.png into (optional)
//   E2E_LOG       file to append what happened to (optional; the CLI ignores our stdio)
//   E2E_BROWSER_WS  a running Chromium to use (test/helpers/chromium-server.ts), in a context of
//                 its own; without it, one is started for this login
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { chromium } from 'playwright-core';

const url = process.argv[2];
const user = process.env.E2E_USER ?? 'alice';
const decision = process.env.E2E_DECISION ?? 'approve';
const shots = process.env.E2E_SHOTS;
const log = (line) => process.env.E2E_LOG && appendFileSync(process.env.E2E_LOG, `${line}\n`);

if (!url) {
  console.error('usage: chromium-browser.mjs <authorization-url>');
  process.exit(2);
}

const shared = process.env.E2E_BROWSER_WS;
// close() on a connected browser ends this login's context and the connection, not the browser.
const browser = shared
  ? await chromium.connect(shared)
  : await chromium.launch({
      executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
      headless: true,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
    });
try {
  const page = await browser.newPage({ viewport: { width: 820, height: 420 } });
  await page.goto(url);
  const text = async () => (await page.textContent('body'))?.replace(/\s+/g, ' ').trim();
  log(`consent page: ${await page.title()} | ${await text()}`);
  await page.selectOption('select[name="user"]', user);
  if (shots) await page.screenshot({ path: join(shots, 'consent.png'), fullPage: true });
  await Promise.all([
    page.waitForURL(/\/callback\?/, { timeout: 15_000 }),
    page.click(`button[name="decision"][value="${decision}"]`),
  ]);
  await page.waitForLoadState('load');
  log(`callback page: ${await text()}`);
  if (shots) await page.screenshot({ path: join(shots, 'callback.png'), fullPage: true });
} catch (error) {
  log(`browser error: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
} finally {
  await browser.close();
  log('browser done');
}
