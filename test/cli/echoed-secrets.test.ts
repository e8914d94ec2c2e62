// SPEC §3: secrets never reach stdout or a log — not even when a service echoes them back. A
// hostile installation quotes everything it was sent (query, form body, Authorization) in its
// refusals: an OAuth error_description, a WWW-Authenticate challenge, an HTML error page. The CLI
// knows what it sent, and masks those values by value wherever the answer is shown.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { evidenceLines } from '../../src/check/report.js';
import { jsonSyntaxProblem } from '../../src/util/json-error.js';
import { redactQuery } from '../../src/util/redact.js';
import { freshConfigDir, runCli } from '../helpers/cli.js';

const SECRET = 'S3cret-client-value';
const ACCESS = 'AccessTokenValue-0123456789abcdefghijklmnopqrstu';
const REFRESH = 'RefreshTokenValue-0123456789abcdefghijklmnopqrs';

let server: Server;
let base: string;

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      const echo = `${req.url} ${body} ${req.headers.authorization ?? ''}`;
      if (req.url!.startsWith('/webservice/json/')) {
        res.writeHead(401, {
          'content-type': 'text/html',
          'www-authenticate': `Bearer error="invalid_token", error_description="${req.headers.authorization}"`,
        });
        return res.end(`<html>refused: ${echo}</html>`);
      }
      if (req.url!.startsWith('/r200')) {
        // A refusal sent with 200 (SERVICE.md shows no error status), quoting the raw query.
        res.writeHead(200, { 'content-type': 'application/json' });
        return res.end(JSON.stringify({ error: 'invalid_request', error_description: echo }));
      }
      if (req.url!.includes('revoke')) {
        res.writeHead(503, { 'content-type': 'text/plain' });
        return res.end(`down; you sent ${echo}`);
      }
      res.writeHead(400, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: 'invalid_grant', error_description: `bad: ${echo}` }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise((resolve) => server.close(resolve)));

/** A config dir whose default profile (on the echoing service) holds a pair expiring in `seconds`. */
function loggedIn(seconds: number): string {
  const dir = freshConfigDir();
  const now = Date.now();
  const profile = {
    baseUrl: base,
    clientId: 'demo-client',
    clientSecret: SECRET,
    scope: 'crm',
    tokens: {
      accessToken: ACCESS,
      refreshToken: REFRESH,
      obtainedAt: now,
      expiresAt: now + seconds * 1000,
    },
  };
  writeFileSync(join(dir, 'config.json'), JSON.stringify({ profiles: { default: profile } }), {
    mode: 0o600,
  });
  return dir;
}

function expectNoSecret(text: string): void {
  for (const secret of [SECRET, ACCESS, REFRESH]) expect(text).not.toContain(secret);
  expect(text).not.toContain(Buffer.from(`demo-client:${SECRET}`).toString('base64'));
}

describe('a service that echoes what it was sent', () => {
  it('token refresh (a 400 quoting the form): no secret in the message, --json or --verbose', async () => {
    const r = await runCli(['--json', '--verbose', 'token', 'refresh'], loggedIn(3600));
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/bad: /);
    expect(r.stderr).toContain('[redacted]');
    expectNoSecret(r.stdout + r.stderr);
  });

  it('rpc (a 401 whose challenge and HTML page quote the bearer token): masked too', async () => {
    const r = await runCli(['--verbose', 'rpc', 'crm', 'contacts.list'], loggedIn(3600));
    expect(r.code).toBe(3);
    expect(r.stderr).toContain('refused: ');
    expectNoSecret(r.stdout + r.stderr);
  });

  it('token revoke --token (a 503 text page quoting it): masked', async () => {
    const r = await runCli(['token', 'revoke', '--token', ACCESS], freshConfigDir(), {
      env: { DASVC_BASE_URL: base, DASVC_CLIENT_ID: 'demo-client', DASVC_CLIENT_SECRET: SECRET },
    });
    expect(r.code).toBe(1);
    // The refusal was received and reported: the mask has something to work on.
    expect(r.stderr).toContain('503');
    expectNoSecret(r.stdout + r.stderr);
  });
});

describe('a refusal sent with HTTP 200, quoting the raw (percent-encoded) query', () => {
  it('masks the token in both its forms', async () => {
    const token = 'Tok+en/with=signs-0123456789';
    const r = await runCli(['token', 'revoke', '--token', token], freshConfigDir(), {
      env: {
        DASVC_BASE_URL: base,
        DASVC_REVOKE_URL: `${base}/r200`,
        DASVC_CLIENT_ID: 'demo-client',
        DASVC_CLIENT_SECRET: SECRET,
      },
    });
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('invalid_request');
    for (const form of [token, encodeURIComponent(token)]) expect(r.stderr).not.toContain(form);
    expectNoSecret(r.stdout + r.stderr);
  });
});

describe('masking by value and by name', () => {
  it('check evidence masks what the installation echoed, in any body', () => {
    const lines = evidenceLines({
      request: {
        method: 'POST',
        url: `${base}/webservice/authorize?client_secret=${SECRET}`,
        headers: {
          authorization: `Bearer ${ACCESS}`,
          'content-type': 'application/x-www-form-urlencoded',
        },
        body: `refresh_token=${REFRESH}`,
      },
      response: {
        status: 200,
        headers: { 'content-type': 'text/html', 'www-authenticate': `Bearer ${ACCESS}` },
        text: `<p>${SECRET} ${ACCESS} ${REFRESH}</p>`,
      },
    });
    expectNoSecret(lines.join('\n'));
    expect(lines.join('\n')).toContain('[redacted]');
    // A secret across the 300-character cut of a body is masked before the cut.
    const long = evidenceLines({
      request: { method: 'GET', url: `${base}/x?token=${ACCESS}`, headers: {} },
      response: {
        status: 200,
        headers: { 'content-type': 'text/plain' },
        text: `${'x'.repeat(280)}${ACCESS}`,
      },
    });
    expect(long.join('\n')).not.toContain(ACCESS.slice(0, 12));
  });

  it('secret parameter names in any case, and after a stray "?"', () => {
    const out = redactQuery(`CLIENT_SECRET=${SECRET}&Token=${ACCESS}&?code=abcdef&scope=crm`);
    expectNoSecret(out);
    expect(out).not.toContain('abcdef');
    expect(out).toContain('scope=crm');
  });

  it('a JSON syntax error never quotes the text it could not read', () => {
    let message = '';
    try {
      JSON.parse(`{"token":${ACCESS}}`);
    } catch (error) {
      message = jsonSyntaxProblem(error);
    }
    expect(message).toMatch(/^Unexpected token/);
    expect(message).not.toContain(ACCESS.slice(0, 8));
  });
});
