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
// In-process CLI runs (runCli) call `drive` directly instead of spawning this file, as they do
// with the stand-in browser: the same Chromium and clicks without a Node start-up and a load of
// playwright-core per login.
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium } from 'playwright-core';

/** Opens `url` in Chromium and answers the consent page as `env` says; never throws. */
export async function drive(url, env) {
  const user = env.E2E_USER ?? 'alice';
  const decision = env.E2E_DECISION ?? 'approve';
  const shots = env.E2E_SHOTS;
  const log = (line) => env.E2E_LOG && appendFileSync(env.E2E_LOG, `${line}\n`);
  let browser;
  try {
    const shared = env.E2E_BROWSER_WS;
    // close() on a connected browser ends this login's context and the connection, not the browser.
    browser = shared
      ? await chromium.connect(shared)
      : await chromium.launch({
          executablePath: env.CHROMIUM_PATH ?? '/usr/bin/chromium',
          headless: true,
          args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
        });
    const page = await browser.newPage({ viewport: { width: 820, height: 420 } });
    // No time limit of playwright's own (30 s): on a loaded machine the test's timeout is the bound.
    page.setDefaultTimeout(0);
    page.setDefaultNavigationTimeout(0);
    await page.goto(url);
    const text = async () => (await page.textContent('body'))?.replace(/\s+/g, ' ').trim();
    log(`consent page: ${await page.title()} | ${await text()}`);
    await page.selectOption('select[name="user"]', user);
    if (shots) await page.screenshot({ path: join(shots, 'consent.png'), fullPage: true });
    await Promise.all([
      page.waitForURL(/\/callback\?/),
      page.click(`button[name="decision"][value="${decision}"]`),
    ]);
    await page.waitForLoadState('load');
    log(`callback page: ${await text()}`);
    if (shots) await page.screenshot({ path: join(shots, 'callback.png'), fullPage: true });
    return true;
  } catch (error) {
    log(`browser error: ${error instanceof Error ? error.message : String(error)}`);
    return false;
  } finally {
    await browser?.close();
    log('browser done');
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  if (!process.argv[2]) {
    console.error('usage: chromium-browser.mjs <authorization-url>');
    process.exit(2);
  }
  if (!(await drive(process.argv[2], process.env))) process.exitCode = 1;
}
