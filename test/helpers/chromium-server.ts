// One headless Chromium for a test file. The browser that `dasvc login` opens
// (chromium-browser.mjs, named by DASVC_BROWSER) and the file's own pages connect to it, each in a
// browser context of its own (no cookie or storage passes from one login to the next), instead of
// starting a Chromium each: a start costs ~0.7 s of CPU, and the suite runs on two cores.
import { chromium, type Browser, type BrowserServer } from 'playwright-core';
import { afterAll, beforeAll, expect } from 'vitest';
import { existsSync } from 'node:fs';

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** The flags every browser of the suite runs with (the machine's network is closed). */
export const CHROMIUM_FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
];

export interface SharedChromium {
  /** The playwright endpoint: `E2E_BROWSER_WS` for chromium-browser.mjs. */
  wsEndpoint: string;
  /** A connection of this process's own (close it after use: the browser stays). */
  connect(): Promise<Browser>;
}

/** For the calling describe block: a Chromium started before its tests and closed after them. */
export function useSharedChromium(): SharedChromium {
  let server: BrowserServer | undefined;
  const shared: SharedChromium = {
    wsEndpoint: '',
    connect: () => chromium.connect(shared.wsEndpoint),
  };
  beforeAll(async () => {
    expect(existsSync(CHROMIUM_PATH), `${CHROMIUM_PATH} is required in CI`).toBe(true);
    server = await chromium.launchServer({
      executablePath: CHROMIUM_PATH,
      headless: true,
      args: CHROMIUM_FLAGS,
    });
    shared.wsEndpoint = server.wsEndpoint();
  });
  afterAll(async () => {
    await server?.close();
  });
  return shared;
}
