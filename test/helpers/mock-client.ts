import { cpSync } from 'node:fs';
import { connect } from 'node:net';
import { request } from 'undici';
import { afterAll, beforeAll } from 'vitest';
import { startMockServer, type MockOptions, type MockServer } from '../../src/mock/index.js';
import { scratchDir } from './scratch.js';

export const DEMO = { id: 'demo-client', secret: 'demo-secret' };
export const OTHER = { id: 'other-client', secret: 'other-secret' };
export const REDIRECT = 'http://127.0.0.1:9/callback';
/** The demo client's credentials as token-endpoint parameters (SERVICE.md 4.2). */
export const DEMO_CREDENTIALS = { client_id: DEMO.id, client_secret: DEMO.secret };
export const FIXTURES = new URL('../../fixtures/', import.meta.url).pathname;

/** Starts the mock on 127.0.0.1 with a free port. */
export function startMock(options: MockOptions = {}): Promise<MockServer> {
  return startMockServer({ port: 0, ...options });
}

/** The address of a mock that lives as long as the test file; read `url` only inside a test or hook. */
export interface FileMock {
  readonly url: string;
}

/** Starts a mock before the file's tests and closes it after them (registers beforeAll/afterAll). */
export function startMockForFile(options: MockOptions = {}): FileMock {
  let server: MockServer | undefined;
  beforeAll(async () => {
    server = await startMock(options);
  });
  afterAll(() => server?.close());
  return {
    get url() {
      if (server === undefined) throw new Error('the file mock is not started yet');
      return server.url;
    },
  };
}

/** Runs `use` against a mock of its own (for clock, faults or state no other test may see), then closes it. */
export async function withMock<T>(
  options: MockOptions,
  use: (mock: MockServer) => Promise<T>,
): Promise<T> {
  const mock = await startMock(options);
  try {
    return await use(mock);
  } finally {
    await mock.close();
  }
}

/** A copy of the default fixtures in a temp folder, to break or extend in a test. */
export function copyFixtures(): string {
  const dir = scratchDir('dasvc-fixtures-');
  cpSync(FIXTURES, dir, { recursive: true });
  return dir;
}

export function tempDir(): string {
  return scratchDir('dasvc-mock-');
}

export function form(params: Record<string, string | undefined>): string {
  const clean = Object.entries(params).filter((e): e is [string, string] => e[1] !== undefined);
  return new URLSearchParams(clean).toString();
}

export function basic(id: string, secret: string): string {
  return `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}`;
}

/** GET with no redirect following. */
export function get(url: string, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(url, { redirect: 'manual', headers });
}

/** POST a form body. */
export function postForm(
  url: string,
  params: Record<string, string | undefined>,
  headers: Record<string, string> = {},
): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: form(params),
  });
}

export function postJson(
  url: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

export interface AuthorizeParams {
  clientId?: string;
  redirectUri?: string;
  scope?: string;
  state?: string;
  user?: string;
  challenge?: string;
  challengeMethod?: string;
}

export function authorizeQuery(p: AuthorizeParams = {}): Record<string, string | undefined> {
  return {
    response_type: 'code',
    client_id: p.clientId ?? DEMO.id,
    redirect_uri: p.redirectUri ?? REDIRECT,
    scope: p.scope ?? 'crm',
    state: p.state ?? 'state-123',
    code_challenge: p.challenge,
    code_challenge_method: p.challengeMethod,
  };
}

/** Submits the consent form as a browser would (approve as `user`); returns the Location. */
export async function approve(
  base: string,
  p: AuthorizeParams = {},
  decision = 'approve',
): Promise<URL> {
  const page = await get(`${base}/webservice/authorize/?${form(authorizeQuery(p))}`);
  if (page.status !== 200) throw new Error(`consent page answered ${page.status}`);
  const html = await page.text();
  const action = /<form method="post" action="([^"]+)"/.exec(html)?.[1];
  if (!action) throw new Error('no consent form');
  const hidden = Object.fromEntries(
    [...html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)].map((m) => [
      m[1]!,
      decodeHtml(m[2]!),
    ]),
  );
  // The action is path-relative; a browser resolves it against the page's URL.
  const target = new URL(decodeHtml(action), `${base}/webservice/authorize/`).href;
  const res = await postForm(target, { ...hidden, user: p.user ?? 'alice', decision });
  const location = res.headers.get('location');
  if (res.status !== 302 || !location)
    throw new Error(`consent answered ${res.status}: ${await res.text()}`);
  return new URL(location);
}

export function decodeHtml(text: string): string {
  const named: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"' };
  return text.replace(/&(#\d+|amp|lt|gt|quot);/g, (_, e: string) =>
    e.startsWith('#') ? String.fromCharCode(Number(e.slice(1))) : named[e]!,
  );
}

/** Runs consent and returns the code. */
export async function getCode(base: string, p: AuthorizeParams = {}): Promise<string> {
  const location = await approve(base, p);
  const code = location.searchParams.get('code');
  if (!code) throw new Error(`no code in ${location.href}`);
  return code;
}

export interface TokenBody {
  access_token: string;
  expires_in: string;
  refresh_token: string;
}

/** Exchanges a code (params in the query string, as SERVICE.md 4.2). */
export function exchange(
  base: string,
  code: string,
  extra: Record<string, string | undefined> = {},
): Promise<Response> {
  const q = form({
    ...DEMO_CREDENTIALS,
    grant_type: 'authorization_code',
    code,
    ...extra,
  });
  return fetch(`${base}/webservice/authorize?${q}`, { method: 'POST' });
}

/** A fresh token pair through the whole browser-less flow. */
export async function login(base: string, p: AuthorizeParams = {}): Promise<TokenBody> {
  const code = await getCode(base, p);
  const res = await exchange(
    base,
    code,
    p.clientId === OTHER.id ? { client_id: OTHER.id, client_secret: OTHER.secret } : {},
  );
  if (res.status !== 200) throw new Error(`exchange answered ${res.status}: ${await res.text()}`);
  return (await res.json()) as TokenBody;
}

/**
 * A token pair from POST /_mock/tokens. Through undici's `request`, not fetch: tests mint by the
 * thousand, and fetch's Request and Response objects cost several times the CPU of the call.
 */
export async function mint(
  base: string,
  user = 'alice',
  scope = 'crm wiki',
  clientId?: string,
): Promise<TokenBody> {
  const res = await request(`${base}/_mock/tokens`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ user, scope, ...(clientId ? { client_id: clientId } : {}) }),
  });
  if (res.statusCode !== 200) throw new Error(`mint answered ${res.statusCode}`);
  return (await res.body.json()) as TokenBody;
}

export function refresh(
  base: string,
  refreshToken: string,
  client = DEMO,
  path = '/webservice/authorize/refresh_token',
): Promise<Response> {
  const q = form({
    client_id: client.id,
    client_secret: client.secret,
    grant_type: 'refresh_token',
    refresh_token: refreshToken,
  });
  return fetch(`${base}${path}?${q}`, { method: 'POST' });
}

export function revoke(
  base: string,
  token: string,
  hint: string | undefined,
  client = DEMO,
): Promise<Response> {
  const q = form({
    client_id: client.id,
    client_secret: client.secret,
    token_type_hint: hint,
    token,
  });
  return fetch(`${base}/webservice/authorize/revoke?${q}`, { method: 'POST' });
}

export function rpc(
  base: string,
  instance: string,
  token: string | undefined,
  body: unknown,
): Promise<Response> {
  return postJson(
    `${base}/webservice/json/${instance}`,
    body,
    token === undefined ? {} : { authorization: `Bearer ${token}` },
  );
}

/** contacts.list status with this access token (200 = token works); undici's request, as mint. */
export async function tokenWorks(base: string, accessToken: string): Promise<boolean> {
  const res = await request(`${base}/webservice/json/crm`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${accessToken}` },
    body: '{"jsonrpc":"2.0","method":"contacts.list","id":1}',
  });
  await res.body.dump();
  return res.statusCode === 200;
}

export async function advance(base: string, advanceBy: string | number): Promise<void> {
  const res = await postJson(`${base}/_mock/clock`, { advance: advanceBy });
  if (res.status !== 200) throw new Error(`clock answered ${res.status}`);
}

export async function oauthErrorOf(
  res: Response,
): Promise<{ status: number; error: string; description: string }> {
  const body = (await res.json()) as { error: string; error_description: string };
  return { status: res.status, error: body.error, description: body.error_description };
}

/** A raw HTTP/1.1 exchange over a socket (request targets and headers fetch would not send). */
export function rawHttp(
  base: string,
  head: string,
): Promise<{ status: number; headers: Record<string, string>; body: string }> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => socket.write(head));
    const chunks: Buffer[] = [];
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('error', reject);
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('latin1');
      const split = text.indexOf('\r\n\r\n');
      if (split === -1) return reject(new Error(`no HTTP answer: ${JSON.stringify(text)}`));
      const [statusLine, ...lines] = text.slice(0, split).split('\r\n');
      const headers: Record<string, string> = {};
      for (const line of lines) {
        const colon = line.indexOf(':');
        headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
      }
      resolve({
        status: Number(statusLine!.split(' ')[1]),
        headers,
        body: text.slice(split + 4),
      });
    });
  });
}
