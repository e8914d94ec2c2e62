import { consentForm } from './cli-browser.mjs';
import type { HttpRequest, HttpResponse, SendFn } from '../../src/http/types.js';

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
