// The authorization request sent once before anyone waits on it (SPEC §3 login): what each answer
// of the authorization endpoint means, read in-process from the real mock app and from answers a
// hostile or unusual server gives.
import { describe, expect, it } from 'vitest';
import { noDisplay, openBrowser } from '../../src/client/browser.js';
import { AuthError, NetworkError, ServiceError } from '../../src/errors.js';
import type { HttpRequest, HttpResponse, SendFn } from '../../src/http/types.js';
import { createMockApp } from '../../src/mock/index.js';
import { processProbeResponse } from '../../src/oauth/authorization-probe.js';
import { pageText } from '../../src/util/html-text.js';
import { appTransport } from '../helpers/in-process.js';
import { AUTHORIZE, flow } from '../helpers/login-flow-run.js';

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

  it('an OAuth error about no client or user is the service’s (exit 1), as at the token endpoint', () => {
    const json = { 'content-type': 'application/json' };
    for (const [code, Kind] of [
      ['invalid_request', ServiceError],
      ['unsupported_response_type', ServiceError],
      ['server_error', ServiceError],
      ['access_denied', AuthError],
      ['invalid_scope', AuthError],
      ['Invalid-Client', AuthError],
    ] as const) {
      const error = refusal(answer(400, json, `{"error":"${code}"}`));
      expect(error, code).toBeInstanceOf(Kind);
      expect(error).toMatchObject({ exitCode: Kind === AuthError ? 3 : 1 });
    }
    // A 404 is no authorization page there, whatever its body says.
    const missing = refusal(answer(404, json, '{"error":"not_found"}'));
    expect(missing).toBeInstanceOf(NetworkError);
    expect(missing).toMatchObject({ code: 'no_authorization_page', exitCode: 4 });
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
      Promise.reject(
        new NetworkError('cannot connect to das.test', { code: 'connection_refused' }),
      );
    await expect(flow(send).result).rejects.toMatchObject({
      exitCode: 4,
      code: 'connection_refused',
    });
  });
});

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
