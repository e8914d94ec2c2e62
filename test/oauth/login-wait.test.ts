// The person's part of a login (src/oauth/login-wait.ts), run through the whole flow in-process:
// the browser and the paste side by side, and a service's approval at once, which completes the
// login only when nothing else can, or after the flow's wait.
import { describe, expect, it } from 'vitest';
import type { SendFn } from '../../src/http/types.js';
import type { LoginFlowDeps } from '../../src/oauth/login-flow.js';
import { createMockApp } from '../../src/mock/index.js';
import { consentForm } from '../helpers/cli-browser.mjs';
import { appTransport } from '../helpers/in-process.js';
import { flow } from '../helpers/login-flow-run.js';

/** Lines pasted one after the other, then the end of the input. */
function pastedLines(lines: string[]): AsyncIterable<string> {
  return {
    async *[Symbol.asyncIterator]() {
      yield* lines;
    },
  };
}

describe('waiting for the person', () => {
  it('an auto-approving service and no browser: the probe’s own redirect completes the login', async () => {
    const app = createMockApp({ autoApprove: 'alice', log: () => undefined });
    try {
      const { result, told, seen } = flow(appTransport(app));
      const { tokens } = await result;
      expect(tokens.accessToken).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(told).toEqual([
        expect.stringMatching(/^Open this URL in a browser to authorize dasvc:\n\n {2}http:/),
        'Could not open a browser (the browser must not be opened); open the URL above yourself.',
        'The service approved at once, without a consent page.',
      ]);
      expect(seen).toHaveLength(2);
      expect(seen[1]).toEqual({
        redirect: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/callback\?state=.+&code=/),
      });
    } finally {
      await app.close();
    }
  });

  it('an auto-approving service and a browser: the browser’s redirect completes the login', async () => {
    const app = createMockApp({ autoApprove: 'alice', log: () => undefined });
    const codeIn = (location: string) => new URL(location).searchParams.get('code');
    const sent: { method: string; url: string; code: string | null }[] = [];
    const transport = appTransport(app);
    const send: SendFn = async (request) => {
      const response = await transport(request);
      const location = response.headers.location;
      sent.push({
        method: request.method,
        url: request.url,
        code: typeof location === 'string' ? codeIn(location) : null,
      });
      return response;
    };
    let browserCode: string | null = null;
    try {
      const { result, told } = flow(send, {
        // The browser visits the URL and follows the service's redirect to the loopback.
        openBrowser: async (url) => {
          const location = (await app(new Request(url))).headers.get('location')!;
          browserCode = codeIn(location);
          void fetch(location);
        },
      });
      const { tokens } = await result;
      expect(tokens.accessToken).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(told.join('\n')).not.toContain('approved at once');
      // The probe got a code of its own; the exchange took the browser's.
      const [probe, exchange] = sent;
      expect(probe).toMatchObject({ method: 'GET', code: expect.any(String) });
      expect(browserCode).not.toBeNull();
      expect(browserCode).not.toBe(probe!.code);
      expect(sent).toHaveLength(2);
      expect(exchange!.url).toContain(`code=${browserCode}`);
    } finally {
      await app.close();
    }
  });

  it('a browser that never visits, or a paste that never comes: the probe’s redirect after a wait', async () => {
    const app = createMockApp({ autoApprove: 'alice', log: () => undefined });
    const never: AsyncIterable<string> = {
      [Symbol.asyncIterator]: () => ({ next: () => new Promise(() => undefined) }),
    };
    try {
      for (const deps of [
        { openBrowser: async () => undefined },
        { openBrowser: undefined, pasted: never },
      ] satisfies Partial<LoginFlowDeps>[]) {
        const { result, told } = flow(appTransport(app), deps, { approvedAtOnceWaitMs: 20 });
        const { tokens } = await result;
        expect(tokens.accessToken).toMatch(/^[A-Za-z0-9_-]{43}$/);
        expect(told.at(-1)).toBe('The service approved at once, without a consent page.');
      }
    } finally {
      await app.close();
    }
  });

  it('a browser that opened: lines from a terminal are read beside it, piped ones are not', async () => {
    const app = createMockApp({ autoApprove: 'alice', log: () => undefined });
    try {
      for (const besideBrowser of [true, false]) {
        let read = false;
        const lines: AsyncIterable<string> = {
          [Symbol.asyncIterator]: () => {
            read = true;
            return { next: () => new Promise(() => undefined) };
          },
        };
        const { result, told } = flow(
          appTransport(app),
          {
            openBrowser: async () => undefined,
            pasted: lines,
            pastedBesideBrowser: besideBrowser,
          },
          { approvedAtOnceWaitMs: 20 },
        );
        expect((await result).tokens.accessToken).toMatch(/^[A-Za-z0-9_-]{43}$/);
        expect({ besideBrowser, read }).toEqual({ besideBrowser, read: besideBrowser });
        expect(told[1]).toBe(
          besideBrowser
            ? 'Waiting for the browser; or paste the address your browser was sent to and press Enter:'
            : 'Waiting for the browser…',
        );
      }
    } finally {
      await app.close();
    }
  });

  it('--no-browser: pasted lines first; the probe’s redirect once they end', async () => {
    const app = createMockApp({ autoApprove: 'alice', log: () => undefined });
    try {
      const { result, told } = flow(appTransport(app), {
        openBrowser: undefined,
        pasted: pastedLines(['not a redirect']),
      });
      await result;
      expect(told.slice(1)).toEqual([
        'Waiting for the redirect; or paste the address your browser was sent to and press Enter:',
        'That is not a redirect URL; paste the whole address from the browser, starting with http.',
        'The service approved at once, without a consent page.',
      ]);
    } finally {
      await app.close();
    }
  });

  it('a stream of lines that are no redirect gets ten answers, then one that says so', async () => {
    const app = createMockApp({ autoApprove: 'alice', log: () => undefined });
    try {
      const flood = Array.from({ length: 1000 }, (_, i) =>
        i % 2 ? 'y' : 'http://127.0.0.1:9/callback?x=1',
      );
      const { result, told } = flow(appTransport(app), {
        openBrowser: undefined,
        pasted: pastedLines(flood),
      });
      await result;
      const answers = told.slice(2, -1);
      expect(answers).toHaveLength(11);
      expect(answers.slice(0, 2)).toEqual([
        'That address carries neither a code nor an error; try again.',
        'That is not a redirect URL; paste the whole address from the browser, starting with http.',
      ]);
      expect(answers.at(-1)).toBe('Further lines that are no redirect get no answer.');
      expect(told.at(-1)).toBe('The service approved at once, without a consent page.');
    } finally {
      await app.close();
    }
  });

  it('no browser to open: said, and a pasted redirect completes the login', async () => {
    const app = createMockApp({ log: () => undefined });
    const pasted: string[] = [];
    let wake = () => undefined as void;
    const lines: AsyncIterable<string> = {
      async *[Symbol.asyncIterator]() {
        for (;;) {
          const line = pasted.shift();
          if (line !== undefined) yield line;
          else await new Promise<void>((resolve) => (wake = resolve));
        }
      },
    };
    let url = '';
    try {
      const send = appTransport(app);
      const run = flow(send, {
        openBrowser: () => Promise.reject(new Error('no display: neither DISPLAY nor …')),
        pasted: lines,
        tell: (message) => {
          if (!message.startsWith('Could not open a browser')) return;
          expect(message).toBe(
            'Could not open a browser (no display: neither DISPLAY nor …); open the URL above yourself, then paste the address your browser was sent to and press Enter:',
          );
          void approveInApp(app, url).then((location) => {
            pasted.push(location);
            wake();
          });
        },
        witness: (step) => {
          if ('authorizationUrl' in step) url = step.authorizationUrl;
        },
      });
      const { tokens } = await run.result;
      expect(tokens.accessToken).toMatch(/^[A-Za-z0-9_-]{43}$/);
    } finally {
      await app.close();
    }
  });
});

/** alice approves on the consent page of an in-process mock app; the redirect URL she ends on. */
async function approveInApp(
  app: (request: Request) => Promise<Response>,
  url: string,
): Promise<string> {
  const page = await app(new Request(url));
  const form = consentForm(url, await page.text())!;
  const approved = await app(
    new Request(form.action, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: form.body,
    }),
  );
  return approved.headers.get('location')!;
}
