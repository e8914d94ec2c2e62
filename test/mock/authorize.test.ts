import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockServer, type MockServer } from '../../src/mock/index.js';
import {
  approve,
  authorizeQuery,
  exchange,
  form,
  get,
  getCode,
  postForm,
  REDIRECT,
  startMock,
  startMockForFile,
} from '../helpers/mock-client.js';

const mock = startMockForFile();

const authorizeUrl = (params: Record<string, string | undefined>) =>
  `${mock.url}/webservice/authorize/?${form(params)}`;

describe('authorization endpoint: consent page (SERVICE.md 4.1, SPEC §5)', () => {
  it('shows an HTML form with client, instances, user picker, Approve and Deny', async () => {
    const res = await get(authorizeUrl(authorizeQuery({ scope: 'crm wiki' })));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    const html = await res.text();
    // Path-relative, so that no Host header can send the form elsewhere.
    expect(html).toContain('<form method="post" action="/webservice/authorize/">');
    expect(html).toContain('demo-client');
    expect(html).toMatch(/<code>crm<\/code>/);
    expect(html).toMatch(/<code>wiki<\/code>/);
    expect(html).toMatch(/<select id="user" name="user">/);
    expect(html).toContain('<option value="alice"');
    expect(html).toContain('<option value="bob"');
    expect(html).toContain(
      '<button type="submit" name="decision" value="approve">Approve</button>',
    );
    expect(html).toContain('<button type="submit" name="decision" value="deny">Deny</button>');
    for (const name of ['response_type', 'client_id', 'redirect_uri', 'scope', 'state']) {
      expect(html).toContain(`<input type="hidden" name="${name}"`);
    }
  });

  it('approval redirects to <redirect_uri>?state=<state>&code=<code>, state byte for byte', async () => {
    const state = 'a b+c/d?e=f&g=h%20i~ü';
    const location = await approve(mock.url, { state });
    expect(`${location.origin}${location.pathname}`).toBe(REDIRECT);
    expect([...location.searchParams.keys()]).toEqual(['state', 'code']);
    expect(location.searchParams.get('state')).toBe(state);
    expect(location.searchParams.get('code')).toMatch(/^[A-Za-z0-9_-]{43,}$/);
  });

  it('approval from the query-string form (params as SERVICE.md 4.1) works too', async () => {
    const res = await get(
      `${mock.url}/webservice/authorize/?${form({ ...authorizeQuery(), user: 'bob' })}`,
    );
    expect(res.status).toBe(200);
    const post = await postForm(`${mock.url}/webservice/authorize/`, {
      ...authorizeQuery(),
      user: 'bob',
      decision: 'approve',
    });
    expect(post.status).toBe(302);
    expect(post.headers.get('location')).toMatch(
      /^http:\/\/127\.0\.0\.1:9\/callback\?state=state-123&code=/,
    );
  });

  it('keeps a query already in the redirect URI', async () => {
    const location = await approve(mock.url, {
      redirectUri: 'https://app.example.test/cb?tenant=7',
    });
    expect(location.searchParams.get('tenant')).toBe('7');
    expect(location.searchParams.get('code')).toBeTruthy();
  });

  it('deny redirects to exactly <redirect_uri>?error=access_denied&state=<state>', async () => {
    const location = await approve(mock.url, { state: 'x y&z' }, 'deny');
    // The state as the authorization request wrote it (form-encoded: x+y%26z), carried through
    // the consent form.
    expect(location.href).toBe(`${REDIRECT}?error=access_denied&state=x+y%26z`);
  });

  it('echoes state as the request wrote it, byte for byte (SPEC §5), with --auto-approve too', async () => {
    const auto = await startMockServer({ port: 0, autoApprove: 'alice' });
    try {
      const query = (raw: string) =>
        `${auto.url}/webservice/authorize/?response_type=code&client_id=demo-client&redirect_uri=${encodeURIComponent(REDIRECT)}&scope=crm&state=${raw}`;
      // fetch sends `|`, `[`, `]`, `{`, `^` and a stray `%` as written, as browsers do.
      for (const raw of ['a+b~%7E:/?!$()*,;=@', 'plain', '%C3%BC%20x', 'a|b[c]{d}^', "a'b%zz"]) {
        const res = await fetch(query(raw), { redirect: 'manual' });
        expect(res.status).toBe(302);
        // What fetch sent: the URL parser encodes `'` and `"` in a query, and nothing above else.
        const sent = new URL(query(raw)).search.split('&state=')[1]!;
        expect(sent === raw || raw.includes("'")).toBe(true);
        expect(res.headers.get('location')).toContain(`?state=${sent}&code=`);
      }
    } finally {
      await auto.close();
    }
  });

  it('a scope the user cannot access redirects with error=invalid_scope, state, then the description', async () => {
    const location = await approve(mock.url, { scope: 'crm wiki', user: 'bob', state: 's1' });
    expect([...location.searchParams.keys()]).toEqual(['error', 'state', 'error_description']);
    expect(location.searchParams.get('error')).toBe('invalid_scope');
    expect(location.searchParams.get('state')).toBe('s1');
    expect(location.href).toMatch(/\?error=invalid_scope&state=s1&error_description=user%20bob%20/);
  });

  it('an unknown instance in scope redirects with invalid_scope', async () => {
    const res = await get(authorizeUrl(authorizeQuery({ scope: 'crm nope' })));
    expect(res.status).toBe(302);
    expect(new URL(res.headers.get('location')!).searchParams.get('error')).toBe('invalid_scope');
  });

  it('an unknown user (400) or no decision re-shows the page, issuing nothing', async () => {
    const a = await postForm(`${mock.url}/webservice/authorize/`, {
      ...authorizeQuery(),
      user: 'mallory',
      decision: 'approve',
    });
    expect(a.status).toBe(400);
    expect(a.headers.get('location')).toBeNull();
    expect(await a.text()).toContain('Unknown user');
    const b = await postForm(`${mock.url}/webservice/authorize/`, {
      ...authorizeQuery(),
      user: 'alice',
    });
    // Without a decision the POST is an authorization request again: the page, no redirect.
    expect(b.status).toBe(200);
    expect(b.headers.get('location')).toBeNull();
    expect(await b.text()).toContain('<form');
  });

  it('a consent form posted by a page of another origin approves nothing (CSRF)', async () => {
    const post = (origin: string) =>
      fetch(`${mock.url}/webservice/authorize/`, {
        method: 'POST',
        redirect: 'manual',
        headers: { 'content-type': 'application/x-www-form-urlencoded', origin },
        body: form({ ...authorizeQuery(), user: 'alice', decision: 'approve' }),
      });
    for (const origin of ['http://evil.example', 'null']) {
      const foreign = await post(origin);
      expect(foreign.status, origin).toBe(400);
      expect(foreign.headers.get('location')).toBeNull();
      const page = await foreign.text();
      expect(page).toContain('was sent from another origin');
      expect(page).toContain('not sent from the consent page of this mock');
      expect(page).not.toContain('could not be trusted');
    }
    // The mock's own page posts with the mock's own origin; behind a proxy that ends TLS, https.
    const own = await post(mock.url);
    expect(own.status).toBe(302);
    expect((await post(mock.url.replace('http:', 'https:'))).status).toBe(302);
    expect(own.headers.get('location')).toMatch(/^http:\/\/127\.0\.0\.1:9\/callback\?state=/);
  });
});

describe('authorization endpoint: refusals', () => {
  it.each([
    ['unknown client_id', { client_id: 'nobody' }],
    ['missing client_id', { client_id: undefined }],
    ['missing redirect_uri', { redirect_uri: undefined }],
    ['relative redirect_uri', { redirect_uri: '/callback' }],
    ['javascript: redirect_uri', { redirect_uri: 'javascript:alert(1)' }],
    ['redirect_uri with a fragment', { redirect_uri: 'http://127.0.0.1:9/cb#frag' }],
  ])('%s is an HTML error page, never a redirect', async (_name, override) => {
    const res = await get(authorizeUrl({ ...authorizeQuery(), ...override }));
    expect(res.status).toBe(400);
    expect(res.headers.get('location')).toBeNull();
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    const page = await res.text();
    expect(page).toContain('Authorization error');
    expect(page).toContain('because its client or redirect URI could not be trusted');
  });

  it('a repeated client_id is an error page too', async () => {
    const res = await get(`${authorizeUrl(authorizeQuery())}&client_id=other-client`);
    expect(res.status).toBe(400);
    expect(await res.text()).toContain('client_id is given more than once');
  });

  const redirectError = async (query: string) => {
    const res = await get(`${mock.url}/webservice/authorize/?${query}`);
    expect(res.status).toBe(302);
    const location = new URL(res.headers.get('location')!);
    expect(`${location.origin}${location.pathname}`).toBe(REDIRECT);
    return location.searchParams;
  };

  it('unknown response_type → unsupported_response_type on the redirect', async () => {
    const p = await redirectError(form({ ...authorizeQuery(), response_type: 'token' }));
    expect([...p.keys()]).toEqual(['error', 'state', 'error_description']);
    expect(p.get('error')).toBe('unsupported_response_type');
    expect(p.get('state')).toBe('state-123');
  });

  it.each([
    ['CR LF (header injection)', 'http://127.0.0.1:9/cb%0D%0ASet-Cookie:%20x=1'],
    ['a space', 'http://127.0.0.1:9/c%20b'],
    ['a tab', 'http://127.0.0.1:9/cb%09'],
    ['a NUL', 'http://127.0.0.1:9/cb%00'],
    ['a no-break space', 'http://127.0.0.1:9/cb%C2%A0'],
    ['latin-1 (not UTF-8)', 'http://127.0.0.1:9/cb/%E9'],
  ])('a redirect_uri with %s is an error page, never a redirect', async (_name, encoded) => {
    for (const responseType of ['code', 'token']) {
      const q = form({ ...authorizeQuery(), redirect_uri: undefined, response_type: responseType });
      const res = await get(`${mock.url}/webservice/authorize/?${q}&redirect_uri=${encoded}`);
      expect(res.status).toBe(400);
      expect(res.headers.get('location')).toBeNull();
      expect(res.headers.get('set-cookie')).toBeNull();
      expect(await res.text()).toContain('invalid_request');
    }
  });

  it('a non-ASCII redirect_uri is redirected to in its percent-encoded form; the server lives on', async () => {
    const q = form({ ...authorizeQuery(), redirect_uri: undefined, response_type: 'token' });
    const res = await get(
      `${mock.url}/webservice/authorize/?${q}&redirect_uri=http://127.0.0.1/cb/%E2%82%AC`,
    );
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toMatch(
      /^http:\/\/127\.0\.0\.1\/cb\/%E2%82%AC\?error=unsupported_response_type&state=state-123&/,
    );
    const location = await approve(mock.url, { redirectUri: 'https://app.example.test/cb/\u20ac' });
    expect(location.pathname).toBe('/cb/%E2%82%AC');
    // The token request compares the redirect_uri as it was sent, not its serialization.
    const code = location.searchParams.get('code')!;
    const token = await exchange(mock.url, code, {
      redirect_uri: 'https://app.example.test/cb/\u20ac',
    });
    expect(token.status).toBe(200);
  });

  it('a parameter that is not valid UTF-8 percent-encoding is an error page (state=%FF)', async () => {
    const q = form({ ...authorizeQuery(), state: undefined });
    const res = await get(`${mock.url}/webservice/authorize/?${q}&state=%FF`);
    expect(res.status).toBe(400);
    expect(res.headers.get('location')).toBeNull();
    const html = await res.text();
    expect(html).toContain('invalid_request');
    expect(html).toContain('parameter state is not valid UTF-8 percent-encoding');
    // The page says why there is no redirect: not the client nor the redirect URI.
    expect(html).toContain('a parameter it would carry back could not be sent unchanged');
    expect(html).not.toContain('could not be trusted');
    // Another parameter: the reason is its own.
    for (const [name, reason] of [
      ['scope', 'a parameter of it could not be read'],
      ['client_id', 'its client or redirect URI could not be trusted'],
      ['redirect_uri', 'its client or redirect URI could not be trusted'],
    ]) {
      const page = await get(`${mock.url}/webservice/authorize/?${q}&state=s&${name}=%FF`);
      expect(await page.text(), name).toContain(`because ${reason}.`);
    }
    // The consent submission too, and nothing is issued.
    const post = await fetch(`${mock.url}/webservice/authorize/`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: `${form({ ...authorizeQuery(), state: undefined })}&state=a%C3&decision=approve&user=alice`,
    });
    expect(post.status).toBe(400);
    expect(post.headers.get('location')).toBeNull();
    // A lone "%" is not an encoding error: it stays a literal character, echoed as such.
    const literal = await approve(mock.url, { state: '100%' });
    expect(literal.searchParams.get('state')).toBe('100%');
  });

  it.each(['response_type', 'scope', 'state'])(
    'missing %s → invalid_request naming it',
    async (name) => {
      const p = await redirectError(form({ ...authorizeQuery(), [name]: undefined }));
      expect(p.get('error')).toBe('invalid_request');
      expect(p.get('error_description')).toContain(name);
    },
  );

  it('a repeated parameter → invalid_request naming it', async () => {
    const p = await redirectError(`${form(authorizeQuery())}&scope=wiki`);
    expect(p.get('error')).toBe('invalid_request');
    expect(p.get('error_description')).toContain('scope');
  });

  it('an empty value counts as missing (RFC 6749 §3.1)', async () => {
    const p = await redirectError(form({ ...authorizeQuery(), scope: '' }));
    expect(p.get('error_description')).toContain('missing parameter: scope');
  });

  it('PKCE: an unknown method → invalid_request; any challenge is left to the token step', async () => {
    const bad = await redirectError(
      form({ ...authorizeQuery(), code_challenge: 'x'.repeat(43), code_challenge_method: 'S512' }),
    );
    expect(bad.get('error')).toBe('invalid_request');
    // SPEC §5 refuses PKCE only at the token step (invalid_grant): a short challenge shows consent.
    const short = await get(
      authorizeUrl({ ...authorizeQuery(), code_challenge: 'short', code_challenge_method: 'S256' }),
    );
    expect(short.status).toBe(200);
  });

  it('the authorize path answers 405 with Allow for other methods', async () => {
    const res = await fetch(authorizeUrl(authorizeQuery()), { method: 'PUT' });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('GET, POST');
    expect(await res.json()).toMatchObject({ error: 'method_not_allowed' });
  });

  it('an authorization request sent without the trailing slash is still understood', async () => {
    const res = await get(`${mock.url}/webservice/authorize?${form(authorizeQuery())}`);
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('<form method="post"');
  });
});

describe('--auto-approve USER', () => {
  let auto: MockServer;
  beforeAll(async () => {
    auto = await startMock({ autoApprove: 'bob' });
  });
  afterAll(() => auto.close());

  it('redirects to a non-ASCII redirect_uri percent-encoded, with a working code', async () => {
    const q = form({ ...authorizeQuery({ state: 's' }), redirect_uri: undefined });
    const res = await get(
      `${auto.url}/webservice/authorize/?${q}&redirect_uri=http://127.0.0.1/cb/%E2%82%AC`,
    );
    expect(res.status).toBe(302);
    const location = res.headers.get('location')!;
    expect(location).toMatch(/^http:\/\/127\.0\.0\.1\/cb\/%E2%82%AC\?state=s&code=[\w-]+$/);
    const code = new URL(location).searchParams.get('code')!;
    expect((await exchange(auto.url, code)).status).toBe(200);
  });

  it('redirects with a code at once, for that user', async () => {
    const res = await get(
      `${auto.url}/webservice/authorize/?${form(authorizeQuery({ state: 'q' }))}`,
    );
    expect(res.status).toBe(302);
    const location = new URL(res.headers.get('location')!);
    expect(location.searchParams.get('state')).toBe('q');
    const code = location.searchParams.get('code')!;
    const tokens = (await (await exchange(auto.url, code)).json()) as { access_token: string };
    const list = await fetch(`${auto.url}/webservice/json/crm`, {
      method: 'POST',
      headers: { authorization: `Bearer ${tokens.access_token}` },
      body: '{"jsonrpc":"2.0","method":"contacts.list","id":1}',
    });
    const body = (await list.json()) as { result: { id: number }[] };
    expect(body.result.map((c) => c.id)).toEqual([3, 4]);
  });

  it("an authorization request in a form body does not read the consent form's raw_state", async () => {
    const q = form({ ...authorizeQuery(), state: undefined });
    const res = await fetch(`${auto.url}/webservice/authorize/`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: `${q}&state=a%7Cb&raw_state=a|b&raw_state=zz`,
    });
    expect(res.status).toBe(302);
    // The state as the request sent it; the form's field neither changes it nor is refused twice.
    expect(res.headers.get('location')).toMatch(/\?state=a%7Cb&code=/);
  });

  it('still refuses a scope the user cannot access', async () => {
    const res = await get(
      `${auto.url}/webservice/authorize/?${form(authorizeQuery({ scope: 'wiki' }))}`,
    );
    expect(new URL(res.headers.get('location')!).searchParams.get('error')).toBe('invalid_scope');
  });

  it('unknown auto-approve user is a startup error', async () => {
    await expect(startMock({ autoApprove: 'mallory' })).rejects.toThrow(/unknown user "mallory"/);
  });
});

it('a code is random per approval', async () => {
  const a = await getCode(mock.url);
  const b = await getCode(mock.url);
  expect(a).not.toBe(b);
  expect(a).toMatch(/^[A-Za-z0-9_-]{43}$/);
});
