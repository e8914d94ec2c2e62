import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  browserEnv,
  expectNoLeaksAfterAll,
  freshConfigDir,
  runCli,
  secrets,
} from '../helpers/cli.js';

/**
 * A stand-in for a standard RFC 6749 server behind a gateway: endpoints at other paths, parameters
 * accepted only in form bodies (a query string is refused), `expires_in` as a number, PKCE checked,
 * RFC 7009 revoke answering 200 with an empty body.
 */
interface Standard {
  url: string;
  server: Server;
  calls: string[];
  close(): Promise<void>;
}

async function readForm(req: IncomingMessage): Promise<URLSearchParams | undefined> {
  let body = '';
  for await (const chunk of req) body += String(chunk);
  if (!String(req.headers['content-type']).startsWith('application/x-www-form-urlencoded'))
    return undefined;
  return new URLSearchParams(body);
}

async function startStandard(withExpiry = true): Promise<Standard> {
  const codes = new Map<string, { challenge: string | null; redirect: string }>();
  const access = new Set<string>();
  const refresh = new Set<string>();
  const calls: string[] = [];
  const issue = () => {
    const a = randomBytes(16).toString('hex');
    const r = randomBytes(16).toString('hex');
    access.add(a);
    refresh.add(r);
    secrets.add(a);
    secrets.add(r);
    return {
      access_token: a,
      token_type: 'Bearer',
      refresh_token: r,
      scope: 'crm',
      ...(withExpiry ? { expires_in: 3600 } : {}),
    };
  };
  const server = createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const json = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' });
      res.end(body === undefined ? '' : JSON.stringify(body));
    };
    calls.push(`${req.method} ${url.pathname}${url.search ? ' +query' : ''}`);
    if (req.method === 'GET' && url.pathname === '/oauth2/auth') {
      const code = randomBytes(8).toString('hex');
      codes.set(code, {
        challenge: url.searchParams.get('code_challenge'),
        redirect: url.searchParams.get('redirect_uri')!,
      });
      const to = new URL(url.searchParams.get('redirect_uri')!);
      to.searchParams.set('code', code);
      to.searchParams.set('state', url.searchParams.get('state')!);
      res.writeHead(302, { location: to.toString() });
      return res.end();
    }
    if (req.method !== 'POST') return json(405, { error: 'invalid_request' });
    if (url.search !== '')
      return json(400, {
        error: 'invalid_request',
        error_description: 'parameters belong in the body',
      });
    const form = await readForm(req);
    if (url.pathname.startsWith('/gateway/api/')) {
      const token = (req.headers.authorization ?? '').replace(/^Bearer /, '');
      if (!access.has(token)) return json(401, { error: 'invalid_token' });
      return json(200, {
        jsonrpc: '2.0',
        result: { scope: url.pathname.split('/')[3], ok: true },
        id: 1,
      });
    }
    if (!form)
      return json(400, { error: 'invalid_request', error_description: 'form body required' });
    if (form.get('client_id') !== 'std-client' || form.get('client_secret') !== 'std-secret-value')
      return json(401, { error: 'invalid_client' });
    if (url.pathname === '/oauth2/token' && form.get('grant_type') === 'authorization_code') {
      const entry = codes.get(form.get('code') ?? '');
      codes.delete(form.get('code') ?? '');
      if (!entry || entry.redirect !== form.get('redirect_uri'))
        return json(400, { error: 'invalid_grant' });
      const verifier = form.get('code_verifier');
      if (
        entry.challenge &&
        (!verifier || createHash('sha256').update(verifier).digest('base64url') !== entry.challenge)
      ) {
        return json(400, { error: 'invalid_grant', error_description: 'PKCE' });
      }
      return json(200, issue());
    }
    if (url.pathname === '/oauth2/token' && form.get('grant_type') === 'refresh_token') {
      if (!refresh.delete(form.get('refresh_token') ?? ''))
        return json(400, { error: 'invalid_grant' });
      return json(200, issue());
    }
    if (url.pathname === '/oauth2/revoke') {
      access.delete(form.get('token') ?? '');
      refresh.delete(form.get('token') ?? '');
      res.writeHead(200);
      return res.end();
    }
    return json(404, { error: 'not_found' });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  return {
    url,
    server,
    calls,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

let std: Standard;
beforeAll(async () => {
  std = await startStandard();
  secrets.add('std-secret-value');
});
expectNoLeaksAfterAll();
afterAll(async () => {
  await std.close();
});

function moved(base: string): string[] {
  return [
    '--authorize-url',
    `${base}/oauth2/auth`,
    '--token-url',
    `${base}/oauth2/token`,
    '--refresh-url',
    `${base}/oauth2/token`,
    '--revoke-url',
    `${base}/oauth2/revoke`,
    '--api-url',
    `${base}/gateway/api/{scope}/rpc`,
  ];
}

/** `dasvc login` against such a server, with its endpoints given as flags. */
function standardLoginArgs(base: string, params?: 'body'): string[] {
  return [
    'login',
    '--base-url',
    base,
    '--client-id',
    'std-client',
    '--client-secret',
    'std-secret-value',
    '--scope',
    'crm',
    ...(params === undefined ? [] : ['--params', params]),
    ...moved(base),
  ];
}

describe('a standard OAuth server with moved endpoints and --params body', () => {
  it('logs in, calls, refreshes, revokes and logs out with flags remembered in the profile', async () => {
    const dir = freshConfigDir();
    const before = std.calls.length;
    const login = await runCli(standardLoginArgs(std.url, 'body'), dir, { env: browserEnv() });
    expect(login.code, login.stderr).toBe(0);
    // The moved authorization URL: once for login's probe, once by the browser, whose redirect
    // (the server approves without asking) gives the code exchanged in a form body.
    expect(std.calls.slice(before)).toEqual([
      'GET /oauth2/auth +query',
      'GET /oauth2/auth +query',
      'POST /oauth2/token',
    ]);
    const rpc = await runCli(['rpc', 'crm', 'anything'], dir);
    expect(rpc.code, rpc.stderr).toBe(0);
    expect(JSON.parse(rpc.stdout)).toEqual({ scope: 'crm', ok: true });
    expect((await runCli(['token', 'refresh'], dir)).code).toBe(0);
    const revoke = await runCli(['token', 'revoke'], dir);
    expect(revoke.code, revoke.stderr).toBe(0);
    const logout = await runCli(['--verbose', 'logout'], dir);
    expect(logout.code, logout.stderr).toBe(0);
    expect(logout.stderr).toContain(
      'client_secret=[redacted]&token_type_hint=refresh_token&token=[redacted]',
    );
    expect(std.calls.filter((c) => c.includes('+query') && c.startsWith('POST'))).toEqual([]);
  });

  it('works from the environment alone (DASVC_*_URL, DASVC_PARAMS)', async () => {
    const dir = freshConfigDir();
    const env = {
      ...browserEnv(),
      DASVC_AUTHORIZE_URL: `${std.url}/oauth2/auth`,
      DASVC_TOKEN_URL: `${std.url}/oauth2/token`,
      DASVC_REFRESH_URL: `${std.url}/oauth2/token`,
      DASVC_REVOKE_URL: `${std.url}/oauth2/revoke`,
      DASVC_API_URL: `${std.url}/gateway/api/{scope}/rpc`,
      DASVC_PARAMS: 'body',
      DASVC_CLIENT_ID: 'std-client',
      DASVC_CLIENT_SECRET: 'std-secret-value',
      DASVC_SCOPE: 'crm',
    };
    const login = await runCli(['login'], dir, { env });
    expect(login.code, login.stderr).toBe(0);
    expect((await runCli(['rpc', 'crm', 'x'], dir, { env })).code).toBe(0);
  });

  it('the query placement is refused by such a server (the flag matters)', async () => {
    const dir = freshConfigDir();
    const login = await runCli(standardLoginArgs(std.url), dir, { env: browserEnv() });
    expect(login.code).toBe(1);
    expect(login.stderr).toContain('invalid_request');
  });

  it('shows an expiry that the server did not send as unknown', async () => {
    const noExpiry = await startStandard(false);
    try {
      const dir = freshConfigDir();
      const login = await runCli([...standardLoginArgs(noExpiry.url, 'body'), '--json'], dir, {
        env: browserEnv(),
      });
      expect(login.code, login.stderr).toBe(0);
      expect(JSON.parse(login.stdout)).toMatchObject({ expiresAt: null, expiresIn: null });
      const status = await runCli(['token', 'status'], dir);
      expect(status.stdout).toContain('expiry unknown');
    } finally {
      await noExpiry.close();
    }
  });
});
