import { consentForm } from './cli-browser.mjs';
import type { HttpRequest, HttpResponse, SendFn } from '../../src/http/types.js';
import type { JournalEntry } from '../../src/mock/core/journal.js';
import { createMockApp, type MockOptions } from '../../src/mock/index.js';

/** The mock app as the HTTP transport: each request answered in-process, no socket (hono habit). */
export function appTransport(app: (request: Request) => Promise<Response>): SendFn {
  return async (request: HttpRequest): Promise<HttpResponse> => {
    const response = await app(
      new Request(request.url, {
        method: request.method,
        headers: request.headers,
        ...(request.body === undefined ? {} : { body: request.body }),
      }),
    );
    const headers: Record<string, string> = {};
    response.headers.forEach((value, name) => (headers[name.toLowerCase()] = value));
    return { status: response.status, headers, text: await response.text() };
  };
}

/**
 * Plays the user's browser against a mock app: the authorization URL, Approve as alice when the
 * app shows its consent page, then the loopback.
 */
export function approvingBrowser(app: (request: Request) => Promise<Response>) {
  return async (url: string): Promise<void> => {
    let consent = await app(new Request(url, { redirect: 'manual' }));
    const form = consent.headers.has('location') ? null : consentForm(url, await consent.text());
    if (form) {
      consent = await app(
        new Request(form.action, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: form.body,
        }),
      );
    }
    const location = consent.headers.get('location');
    if (!location)
      throw new Error(`the consent step answered ${consent.status} without a redirect`);
    const callback = await fetch(location);
    await callback.text();
  };
}

/**
 * The mock app on a clock the test moves, keeping every journal entry it makes: `post` sends a
 * POST (with a bearer token when given), `mint` gets alice a crm pair without a browser.
 */
export function journaledApp(options: MockOptions = {}) {
  const clock = { t: Date.parse('2030-01-01T00:00:00Z') };
  const entries: JournalEntry[] = [];
  const app = createMockApp({
    ...options,
    now: () => clock.t,
    onRequest: (entry) => entries.push(entry),
  });
  const post = (path: string, body?: BodyInit, token?: string) =>
    app(
      new Request(`${JOURNALED_BASE}${path}`, {
        method: 'POST',
        headers: token ? { authorization: `Bearer ${token}` } : {},
        ...(body === undefined ? {} : { body }),
      }),
    );
  const mint = async () =>
    (await (
      await post('/_mock/tokens', JSON.stringify({ user: 'alice', scope: 'crm' }))
    ).json()) as { access_token: string; refresh_token: string };
  return { app, clock, entries, post, mint };
}

/** The made-up base URL of `journaledApp`. */
export const JOURNALED_BASE = 'http://das.test';
