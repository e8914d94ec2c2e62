// vitest globalSetup: one headless Chromium for the whole run, started when the first test file
// asks for it (a run without the browser tests starts none) and closed when the run ends. Files in
// any worker connect to it, each page in a browser context of its own (no cookie or storage
// passes from one test to the next). A Chromium start costs ~0.7 s of CPU, and the suite runs on
// two cores: one per file was three. The worker that would start it could end before a file of
// another worker is done with it, so it lives here, in vitest's own process, asked for over a
// loopback socket (test/helpers/chromium-server.ts).
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { BrowserServer } from 'playwright-core';
import type { TestProject } from 'vitest/node';

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** The flags every browser of the suite runs with (the machine's network is closed). */
export const CHROMIUM_FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
];

declare module 'vitest' {
  export interface ProvidedContext {
    /** Where a test file asks for the run's Chromium: a GET answers its playwright endpoint. */
    chromiumAsk: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  let launched: Promise<BrowserServer> | undefined;
  const ask = createServer((_request, response) => {
    launched ??= import('playwright-core').then(({ chromium }) =>
      chromium.launchServer({
        executablePath: CHROMIUM_PATH,
        headless: true,
        args: CHROMIUM_FLAGS,
      }),
    );
    launched.then(
      (server) => response.end(server.wsEndpoint()),
      (error: Error) => response.writeHead(500).end(error.message),
    );
  });
  await new Promise<void>((resolve) => ask.listen(0, '127.0.0.1', resolve));
  project.provide('chromiumAsk', `http://127.0.0.1:${(ask.address() as AddressInfo).port}/`);
  return async () => {
    ask.close();
    const server = await launched?.catch(() => undefined);
    await server?.close();
  };
}
