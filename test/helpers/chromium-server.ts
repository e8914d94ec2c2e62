// The run's headless Chromium (test/helpers/chromium-run.ts starts it at the first file's ask).
// The browser that `dasvc login` opens (chromium-browser.mjs, named by DASVC_BROWSER) and the
// file's own pages connect to it, each in a browser context of its own.
import { chromium, type Browser } from 'playwright-core';
import { beforeAll, expect, inject } from 'vitest';
import { existsSync } from 'node:fs';
import { request } from 'undici';
import { CHROMIUM_FLAGS, CHROMIUM_PATH } from './chromium-run.js';

export { CHROMIUM_FLAGS, CHROMIUM_PATH };

export interface SharedChromium {
  /** The playwright endpoint: `E2E_BROWSER_WS` for chromium-browser.mjs. */
  wsEndpoint: string;
  /** A connection of this process's own (close it after use: the browser stays). */
  connect(): Promise<Browser>;
}

/** For the calling describe block: the run's Chromium, asked for before its tests. */
export function useSharedChromium(): SharedChromium {
  const shared: SharedChromium = {
    wsEndpoint: '',
    connect: () => chromium.connect(shared.wsEndpoint),
  };
  beforeAll(async () => {
    expect(existsSync(CHROMIUM_PATH), `${CHROMIUM_PATH} is required in CI`).toBe(true);
    const answer = await request(inject('chromiumAsk'));
    const text = await answer.body.text();
    expect(answer.statusCode, `the run's Chromium did not start: ${text}`).toBe(200);
    shared.wsEndpoint = text;
  });
  return shared;
}
