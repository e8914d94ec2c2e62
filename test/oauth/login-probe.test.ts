// The authorization request sent once before anyone waits on it (SPEC §3 login): what each answer
// of the authorization endpoint means, read in-process from the real mock app and from answers a
// hostile or unusual server gives.
import { describe, expect, it } from 'vitest';
import { noDisplay, openBrowser } from '../../src/client/browser.js';
import { AuthError, NetworkError, ServiceError } from '../../src/errors.js';
import type { HttpRequest, HttpResponse, SendFn } from '../../src/http/types.js';
import { createMockApp } from '../../src/mock/index.js';
import { processProbeResponse } from '../../src/oauth/authorization-probe.js';
import {
  runLoginFlow,
  type LoginFlowDeps,
  type LoginFlowOptions,
} from '../../src/oauth/login-flow.js';
import { pageText } from '../../src/util/html-text.js';
import { consentForm } from '../helpers/cli-browser.mjs';
import { appTransport } from '../helpers/in-process.js';

const AUTHORIZE = 'http://das.test/webservice/authorize/';
const REDIRECT = 'http://127.0.0.1:5555/callback';
const URL_SENT = `${AUTHORIZE}?response_type=code&client_id=demo-client&state=s`;

const answer = (status: number, headers: Record<string, string> = {}, text = ''): HttpResponse => ({
  status,
  headers,
  text,
});

const probe = (response: HttpResponse) => processProbeResponse(response, URL_SENT, REDIRECT);

/** What `probe` threw. */
function refusal(response: HttpResponse): unknown {
  try {
    probe(response);
  } catch (error) {
    return error;
  }
  throw new Error('the answer was not refused');
}

describe('pageText: what a person reads on an HTML page', () => {
  it('gives the title and one line per block, without scripts, styles or comments', () => {
    const page = pageText(`<!doctype html><html><head><title>Sign &amp; in</title>
      <style>h1 { color: red }</style><script>if (a < b) alert("x")</script></head>
      <body><!-- <p>hidden</p> --><h1>Access   denied</h1><p>Client <b>x</b> is &lt;unknown&gt;&#33;</p>
      <ul><li>one</li><li>two&nbsp;words</li></ul></body></html>`);
    expect(page.title).toBe('Sign & in');
    expect(page.lines).toEqual(['Access denied', 'Client x is <unknown>!', 'one', 'two words']);
  });

  it('survives what is not HTML at all: unclosed tags and comments, stray brackets', () => {
    expect(pageText('a < b and c > d').lines).toEqual(['a < b and c > d']);
    expect(pageText('<p>open <script>never closed').lines).toEqual(['open']);
    expect(pageText('text <!-- unclosed').lines).toEqual(['text']);
    expect(pageText('<title>only a title').title).toBe('only a title');
  });
});

describe('the probe’s answer (processProbeResponse)', () => {
  it('a page, or a redirect anywhere but the redirect URI, is for the browser', () => {
    expect(probe(answer(200, { 'content-type': 'text/html' }, '<h1>Sign in</h1>'))).toEqual({
      kind: 'page',
    });
    for (const location of [
      '/login?next=%2Fwebservice%2Fauthorize%2F',
      'https://sso.example/authorize',
      'http://127.0.0.1:5555/elsewhere?code=x&state=s',
      'http://127.0.0.1:5556/callback?code=x&state=s',
      'http://[bad',
    ])
      expect(probe(answer(302, { location })), location).toEqual({ kind: 'page' });
    expect(probe(answer(302))).toEqual({ kind: 'page' });
  });

  it('a redirect to the redirect URI is handed back as it came, to be read like the loopback’s', () => {
    const location = `${REDIRECT}?state=s&code=c0de`;
    expect(probe(answer(302, { location }))).toEqual({ kind: 'redirect', location });
    expect(probe(answer(303, { location: `${REDIRECT}?error=access_denied&state=s` }))).toEqual({
      kind: 'redirect',
      location: `${REDIRECT}?error=access_denied&state=s`,
    });
  });

  it('the mock’s error page for an unknown client: exit 3, invalid_client, in its own words', async () => {
    const app = createMockApp({ log: () => undefined });
    try {
      const send = appTransport(app);
      const url = `http://das.test/webservice/authorize/?response_type=code&client_id=nope&redirect_uri=${encodeURIComponent(REDIRECT)}&scope=crm&state=s`;
      const response = await send({ method: 'GET', url, headers: {} });
      const error = refusal(response);
      expect(error).toBeInstanceOf(AuthError);
      expect(error).toMatchObject({ exitCode: 3, code: 'invalid_client', status: 400 });
      expect((error as Error).message).toBe(
        'the authorization endpoint refused the request (HTTP 400): Authorization error · invalid_client: unknown client_id "nope" · The request was not redirected back to the application because its client or redirect URI could not be trusted.',
      );
    } finally {
      await app.close();
    }
  });

  it('an OAuth JSON error, with any status, is refused with its code and description', () => {
    const json = { 'content-type': 'application/json' };
    const body = '{"error":"unauthorized_client","error_description":"not for this client"}';
    for (const status of [200, 400, 401]) {
      const error = refusal(answer(status, json, body));
      expect(error).toBeInstanceOf(AuthError);
      expect(error).toMatchObject({ code: 'unauthorized_client', detail: 'not for this client' });
      expect((error as Error).message).toBe(
        `the authorization endpoint refused the request (HTTP ${status}): unauthorized_client (not for this client)`,
      );
    }
  });

  it('a 4xx page naming no OAuth error is no authorization page (exit 4); a 401/403 a refusal (3)', () => {
    const error = refusal(answer(404, { 'content-type': 'text/html' }, '<h1>Not Found</h1>'));
    expect(error).toBeInstanceOf(NetworkError);
    expect(error).toMatchObject({ code: 'no_authorization_page', status: 404 });
    expect((error as Error).message).toBe(
      `no authorization page at ${URL_SENT.split('?')[0]} (HTTP 404): Not Found`,
    );
    for (const status of [401, 403]) {
      const refused = refusal(answer(status, { 'content-type': 'text/html' }, 'Forbidden'));
      expect(refused).toBeInstanceOf(AuthError);
      expect(refused).toMatchObject({ code: `http_${status}` });
    }
  });

  it('a 5xx is the service failing (exit 1), with whatever it said', () => {
    const error = refusal(
      answer(503, { 'content-type': 'text/plain' }, '  maintenance\n until 6 '),
    );
    expect(error).toBeInstanceOf(ServiceError);
    expect(error).toMatchObject({ exitCode: 1, code: 'http_503', status: 503 });
    expect((error as Error).message).toBe(
      'the authorization endpoint failed (HTTP 503): maintenance until 6',
    );
    expect((refusal(answer(500)) as Error).message).toBe(
      'the authorization endpoint failed (HTTP 500)',
    );
  });

  it('a hostile page cannot drive the terminal or flood the message', () => {
    const page = `<title>x</title><p>\u001b]0;pwned\u0007\u001b[2J${'word '.repeat(10_000)}</p>`;
    const message = (refusal(answer(400, { 'content-type': 'text/html' }, page)) as Error).message;
    expect([...message].some((c) => c.charCodeAt(0) < 0x20)).toBe(false);
    expect(message).toContain('\\u001b]0;pwned\\u0007');
    expect(message.length).toBeLessThan(420);
    expect(message.endsWith('…')).toBe(true);
  });
});

/** A login flow against `send`, with a browser that must not be opened unless given. */
function flow(
  send: SendFn,
  deps: Partial<LoginFlowDeps> = {},
  options: Partial<LoginFlowOptions> = {},
) {
  const told: string[] = [];
  const seen: unknown[] = [];
  const result = runLoginFlow(
    {
      authorizeUrl: AUTHORIZE,
      tokenUrl: 'http://das.test/webservice/authorize',
      client: { clientId: 'demo-client', clientSecret: 'demo-secret' },
      scope: 'crm',
      placement: 'query',
      port: 0,
      timeoutMs: 20_000,
      // Longer than any test: a test of the wait for a browser sets its own.
      approvedAtOnceWaitMs: 60_000,
      ...options,
    },
    {
      send,
      now: Date.now,
      tell: (message) => told.push(message),
      witness: (step) => seen.push(step),
      openBrowser: () => Promise.reject(new Error('the browser must not be opened')),
      ...deps,
    },
  );
  return { result, told, seen };
}

/** A server that answers the authorization request by redirecting with `query(state)`. */
function redirecting(query: (state: string) => string): { send: SendFn; sent: HttpRequest[] } {
  const sent: HttpRequest[] = [];
  const send: SendFn = async (request) => {
    sent.push(request);
    const url = new URL(request.url);
    const back = url.searchParams.get('redirect_uri')!;
    return answer(302, { location: `${back}?${query(url.searchParams.get('state')!)}` });
  };
  return { send, sent };
}

describe('the login flow with the probe', () => {
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

  it('--no-browser: pasted lines first; the probe’s redirect once they end', async () => {
    const app = createMockApp({ autoApprove: 'alice', log: () => undefined });
    try {
      const ended: AsyncIterable<string> = {
        async *[Symbol.asyncIterator]() {
          yield 'not a redirect';
        },
      };
      const { result, told } = flow(appTransport(app), { openBrowser: undefined, pasted: ended });
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

  it('a redirect with another state: refused (exit 3), nothing exchanged', async () => {
    const { send, sent } = redirecting(() => 'state=forged&code=c0de');
    const { result } = flow(send);
    await expect(result).rejects.toMatchObject({ exitCode: 3, code: 'state_mismatch' });
    expect(sent.map((r) => r.method)).toEqual(['GET']);
  });

  it('a redirect carrying error=access_denied: exit 3 with the service’s description', async () => {
    const { send, sent } = redirecting(
      (state) => `error=access_denied&error_description=not+today&state=${state}`,
    );
    const { result } = flow(send);
    await expect(result).rejects.toMatchObject({
      exitCode: 3,
      code: 'access_denied',
      message: 'authorization failed: access_denied (not today)',
    });
    expect(sent).toHaveLength(1);
  });

  it('a redirect carrying neither a code nor an error: an unexpected answer (exit 4), at once', async () => {
    const { send } = redirecting((state) => `state=${state}`);
    const error = await flow(send).result.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NetworkError);
    expect(error).toMatchObject({ code: 'unexpected_response' });
  });

  it('no answer from the service: its network error (exit 4), never the timeout', async () => {
    const send: SendFn = () =>
      Promise.reject(new NetworkError('cannot connect to das.test', { code: 'ECONNREFUSED' }));
    await expect(flow(send).result).rejects.toMatchObject({ exitCode: 4, code: 'ECONNREFUSED' });
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

describe('opening the browser: no browser is a rejection, not a wait', () => {
  it('Linux without a display has none (unless WSL); macOS and Windows always have one', () => {
    expect(noDisplay({}, 'linux')).toBe('no display: neither DISPLAY nor WAYLAND_DISPLAY is set');
    expect(noDisplay({ DISPLAY: ':0' }, 'linux')).toBeUndefined();
    expect(noDisplay({ WAYLAND_DISPLAY: 'wayland-0' }, 'linux')).toBeUndefined();
    expect(noDisplay({ WSL_DISTRO_NAME: 'Debian' }, 'linux')).toBeUndefined();
    expect(noDisplay({}, 'darwin')).toBeUndefined();
    expect(noDisplay({}, 'win32')).toBeUndefined();
  });

  it('rejects with no display, a command that cannot run, or one that fails; resolves on exit 0', async () => {
    await expect(openBrowser('http://x.test/', {}, 'linux')).rejects.toThrow(
      'no display: neither DISPLAY nor WAYLAND_DISPLAY is set',
    );
    await expect(openBrowser('http://x.test/', { BROWSER: '/bin/false' })).rejects.toThrow(
      'the BROWSER command /bin/false exited with 1',
    );
    await expect(
      openBrowser('http://x.test/', { DASVC_BROWSER: '/nonexistent/dasvc-browser' }),
    ).rejects.toThrow('cannot run the DASVC_BROWSER command /nonexistent/dasvc-browser (ENOENT)');
    await expect(openBrowser('http://x.test/', { BROWSER: '/bin/true' })).resolves.toBeUndefined();
  });
});
