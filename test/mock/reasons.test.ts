import { createHash } from 'node:crypto';
import { appendFileSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createMockApp } from '../../src/mock/index.js';
import type { JournalEntry } from '../../src/mock/core/journal.js';
import { formatLogLine } from '../../src/mock/core/log-line.js';
import { basic, copyFixtures, DEMO, form, OTHER, REDIRECT } from '../helpers/mock-client.js';

// SPEC §8: every refusal the mock can give carries its error code and a one-line reason, in the
// same record for the log line, the --json log and the journal.

const BASE = 'http://127.0.0.1:8080';
const DEMO_PARAMS: Record<string, string> = { client_id: DEMO.id, client_secret: DEMO.secret };
const VERIFIER = 'dBjftJeZ4CVP-mJ92K1uHdnvm6gXaHgpkXdfhkJV1yY';
const CHALLENGE = createHash('sha256').update(VERIFIER).digest('base64url');

// Fixtures with a public client and a computed method that fails like a bug would.
const fixtures = copyFixtures();
appendFileSync(join(fixtures, 'clients.txt'), 'public-client\n');
const crm = JSON.parse(readFileSync(join(fixtures, 'instances/crm.json'), 'utf8')) as {
  methods: unknown[];
};
crm.methods.push(
  { name: 'contacts.crash', params: [], handler: 'crash.js#crash' },
  { name: 'contacts.leak', params: [], handler: 'crash.js#leak' },
);
writeFileSync(join(fixtures, 'instances/crm.json'), JSON.stringify(crm));
writeFileSync(
  join(fixtures, 'instances/crash.js'),
  [
    'export function crash() { throw new Error("boom"); }',
    // An error whose data carries secrets, as a careless service's might.
    'export function leak() {',
    '  throw { code: -32010, message: "Boom", data: { sessionToken: "S3cr3tTokenValue123", password: "hunter2hunter2", user: "ada" } };',
    '}',
    '',
  ].join('\n'),
);
afterAll(() => rmSync(fixtures, { recursive: true, force: true }));

const entries: JournalEntry[] = [];
const app = createMockApp({ fixtures, onRequest: (e) => entries.push(e) });

/** Sends a request; returns the response and the record the mock wrote for it. */
async function send(
  path: string,
  init: RequestInit = {},
): Promise<{ res: Response; entry: JournalEntry }> {
  const before = entries.length;
  const res = await app(new Request(`${BASE}${path}`, { redirect: 'manual', ...init }));
  expect(entries.length).toBe(before + 1);
  return { res, entry: entries[entries.length - 1]! };
}

const token = (params: Record<string, string | undefined>, headers: Record<string, string> = {}) =>
  send(`/webservice/authorize?${form(params)}`, { method: 'POST', headers });

const authorize = (params: Record<string, string | undefined>) =>
  send(
    `/webservice/authorize/?${form({ response_type: 'code', client_id: DEMO.id, redirect_uri: REDIRECT, scope: 'crm', state: 'st', ...params })}`,
  );

/** A fresh code: the consent form approved as `user`. */
async function code(extra: Record<string, string> = {}, user = 'alice'): Promise<string> {
  const q = form({
    response_type: 'code',
    client_id: DEMO.id,
    redirect_uri: REDIRECT,
    scope: 'crm',
    state: 'st',
    decision: 'approve',
    user,
    ...extra,
  });
  const { res } = await send('/webservice/authorize/', {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: q,
  });
  return new URL(res.headers.get('location')!).searchParams.get('code')!;
}

const exchange = (c: string, extra: Record<string, string> = {}) =>
  token({
    grant_type: 'authorization_code',
    code: c,
    client_id: DEMO.id,
    client_secret: DEMO.secret,
    ...extra,
  });

async function pair(): Promise<{ access_token: string; refresh_token: string }> {
  const { res } = await exchange(await code());
  return (await res.json()) as { access_token: string; refresh_token: string };
}

const rpc = (access: string, body: string, instance = 'crm') =>
  send(`/webservice/json/${instance}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${access}`, 'content-type': 'application/json' },
    body,
  });

/** A refusal: the expected code and a reason that says so, on one line. */
function refused(entry: JournalEntry, code: string | number, reason: string | RegExp): void {
  expect(entry.code).toBe(code);
  expect(entry.reason).toBeTypeOf('string');
  expect(entry.reason).not.toMatch(/[\r\n]/);
  if (typeof reason === 'string') expect(entry.reason).toContain(reason);
  else expect(entry.reason).toMatch(reason);
  expect(formatLogLine(entry)).toContain(`${code}: ${entry.reason}`);
}

describe('token endpoint refusals (RFC 6749 §5.2)', () => {
  it.each([
    [DEMO_PARAMS, 'invalid_request', 'missing parameter: grant_type'],
    [{ grant_type: 'authorization_code' }, 'invalid_request', 'missing parameter: client_id'],
    [
      { client_id: DEMO.id, grant_type: 'authorization_code' },
      'invalid_request',
      'missing parameter: client_secret',
    ],
    [
      // An empty value is no value, as for every parameter.
      { client_id: DEMO.id, client_secret: '', grant_type: 'authorization_code' },
      'invalid_request',
      'missing parameter: client_secret',
    ],
    [
      { client_id: 'nobody', client_secret: 'x', grant_type: 'authorization_code' },
      'invalid_client',
      'unknown client "nobody"',
    ],
    [
      { client_id: DEMO.id, client_secret: 'wrong', grant_type: 'authorization_code' },
      'invalid_client',
      'wrong client_secret for demo-client',
    ],
    [
      { client_id: 'public-client', client_secret: 'x', grant_type: 'authorization_code' },
      'invalid_client',
      'is public and has no secret',
    ],
    [
      { client_id: DEMO.id, client_secret: DEMO.secret, grant_type: 'password' },
      'unsupported_grant_type',
      'got "password"',
    ],
    [
      { client_id: DEMO.id, client_secret: DEMO.secret, grant_type: 'authorization_code' },
      'invalid_request',
      'missing parameter: code',
    ],
    [
      {
        client_id: DEMO.id,
        client_secret: DEMO.secret,
        grant_type: 'authorization_code',
        code: 'nope',
      },
      'invalid_grant',
      'unknown or expired authorization code',
    ],
    [
      { client_id: DEMO.id, client_secret: DEMO.secret, grant_type: 'refresh_token' },
      'invalid_request',
      'missing parameter: refresh_token',
    ],
    [
      {
        client_id: DEMO.id,
        client_secret: DEMO.secret,
        grant_type: 'refresh_token',
        refresh_token: 'nope',
      },
      'invalid_grant',
      'unknown refresh token (never issued by this mock',
    ],
  ])('%j → %s', async (params, code, reason) => {
    const { res, entry } = await token(params);
    expect(res.status).toBeGreaterThanOrEqual(400);
    refused(entry, code, reason);
    if (params.client_id !== undefined) expect(entry.client).toBe(params.client_id);
  });

  it('repeated parameters and HTTP Basic mistakes', async () => {
    refused(
      (
        await send(`/webservice/authorize?client_id=a&client_id=b`, {
          method: 'POST',
        })
      ).entry,
      'invalid_request',
      'client_id is given more than once',
    );
    for (const path of ['/webservice/authorize', '/webservice/authorize/revoke']) {
      const broken = await send(`${path}?client_id=%E0%A4%A&client_secret=x&grant_type=x`, {
        method: 'POST',
      });
      expect(broken.res.status).toBe(400);
      refused(broken.entry, 'invalid_request', 'parameter client_id is not valid UTF-8');
    }
    const demoBasic = { authorization: basic(DEMO.id, DEMO.secret) };
    refused(
      (await token({ grant_type: 'authorization_code' }, { authorization: 'Basic !!!' })).entry,
      'invalid_client',
      'malformed HTTP Basic',
    );
    refused(
      (await token({ grant_type: 'authorization_code', client_secret: 'x' }, demoBasic)).entry,
      'invalid_request',
      'both in HTTP Basic and in client_secret',
    );
    const differ = await token(
      { grant_type: 'authorization_code', client_id: OTHER.id },
      demoBasic,
    );
    refused(differ.entry, 'invalid_client', 'client_id differs from the HTTP Basic user');
    expect(differ.entry.client).toBe(DEMO.id);
  });

  it('code misuse: other client, replay, redirect_uri, PKCE', async () => {
    const c1 = await code();
    const other = await token({
      grant_type: 'authorization_code',
      code: c1,
      client_id: OTHER.id,
      client_secret: OTHER.secret,
    });
    refused(other.entry, 'invalid_grant', 'issued to another client');
    expect(other.entry).toMatchObject({ user: 'alice', client: OTHER.id });

    expect((await exchange(c1)).res.status).toBe(200);
    const replay = await exchange(c1);
    refused(replay.entry, 'invalid_grant', 'code already used; its tokens were revoked');
    expect(replay.entry.user).toBe('alice');

    refused(
      (await exchange(await code(), { redirect_uri: 'http://127.0.0.1:9/elsewhere' })).entry,
      'invalid_grant',
      'redirect_uri does not match',
    );
    const pkce = { code_challenge: CHALLENGE, code_challenge_method: 'S256' };
    refused((await exchange(await code(pkce))).entry, 'invalid_grant', 'code_verifier required');
    refused(
      (await exchange(await code(pkce), { code_verifier: `${VERIFIER}x` })).entry,
      'invalid_grant',
      'code_verifier does not match',
    );
    const ok = await exchange(await code(pkce), { code_verifier: VERIFIER });
    expect(ok.res.status, ok.entry.reason).toBe(200);
    expect(ok.entry.code).toBeUndefined();
    expect(ok.entry).toMatchObject({ user: 'alice', client: DEMO.id });
  });

  it('PKCE as SPEC §5 words it: any challenge binds, only the token step refuses', async () => {
    // A short plain challenge is outside RFC 7636's form but still carried: its verifier passes.
    const plain = await exchange(
      await code({ code_challenge: 'abc', code_challenge_method: 'plain' }),
      {
        code_verifier: 'abc',
      },
    );
    expect(plain.res.status, plain.entry.reason).toBe(200);
    // A method alone asks for no verifier.
    const lone = await exchange(await code({ code_challenge_method: 'S256' }));
    expect(lone.res.status, lone.entry.reason).toBe(200);
    // The refusal names the usual PKCE bugs: a padded/base64 challenge, a verifier out of form.
    const padded = createHash('sha256').update(VERIFIER).digest('base64');
    refused(
      (
        await exchange(await code({ code_challenge: padded, code_challenge_method: 'S256' }), {
          code_verifier: VERIFIER,
        })
      ).entry,
      'invalid_grant',
      'the S256 code_challenge is not 43 base64url characters',
    );
    refused(
      (await exchange(await code({ code_challenge: 'abc' }), { code_verifier: 'abd' })).entry,
      'invalid_grant',
      'the code_verifier is not 43-128 characters',
    );
  });

  it('refresh misuse: other client, reuse of a rotated token', async () => {
    const t = await pair();
    const refresh = (id: string, secret: string, rt: string) =>
      send(
        `/webservice/authorize/refresh_token?${form({ grant_type: 'refresh_token', refresh_token: rt, client_id: id, client_secret: secret })}`,
        { method: 'POST' },
      );
    refused(
      (await refresh(OTHER.id, OTHER.secret, t.refresh_token)).entry,
      'invalid_grant',
      'refresh token was issued to another client',
    );
    expect((await refresh(DEMO.id, DEMO.secret, t.refresh_token)).res.status).toBe(200);
    const reuse = await refresh(DEMO.id, DEMO.secret, t.refresh_token);
    refused(reuse.entry, 'invalid_grant', 'refresh token already used');
    expect(reuse.entry.user).toBe('alice');
  });
});

describe('revoke refusals (RFC 7009)', () => {
  const revoke = (params: Record<string, string>) =>
    send(`/webservice/authorize/revoke?${form(params)}`, { method: 'POST' });
  const demo = { client_id: DEMO.id, client_secret: DEMO.secret };

  it('names the missing or bad parameter, and a token of another client', async () => {
    refused(
      (await revoke({ ...demo, token: 'x' })).entry,
      'invalid_request',
      'missing parameter: token_type_hint',
    );
    refused(
      (await revoke({ ...demo, token_type_hint: 'access_token' })).entry,
      'invalid_request',
      'missing parameter: token',
    );
    refused(
      (await revoke({ ...demo, token_type_hint: 'id_token', token: 'x' })).entry,
      'invalid_request',
      'token_type_hint must be access_token or refresh_token',
    );
    const t = await pair();
    const other = await revoke({
      client_id: OTHER.id,
      client_secret: OTHER.secret,
      token_type_hint: 'access_token',
      token: t.access_token,
    });
    refused(other.entry, 'invalid_grant', 'issued to demo-client, not other-client');
    // Not refusals, but the log still says what happened (RFC 7009 answers both the same).
    const unknown = await revoke({ ...demo, token_type_hint: 'access_token', token: 'nope' });
    expect(unknown.entry.code).toBeUndefined();
    expect(unknown.entry.reason).toContain('nothing to revoke');
    const done = await revoke({ ...demo, token_type_hint: 'access_token', token: t.access_token });
    expect(done.entry).toMatchObject({ reason: 'revoked the access token', user: 'alice' });
  });
});

describe('authorization endpoint refusals (error page or error redirect)', () => {
  it.each([
    [{ client_id: undefined }, 400, 'invalid_request', 'missing parameter: client_id'],
    [{ client_id: '<b>x</b>' }, 400, 'invalid_client', 'unknown client_id "<b>x</b>"'],
    [{ redirect_uri: undefined }, 400, 'invalid_request', 'missing parameter: redirect_uri'],
    [{ redirect_uri: 'ftp://x/' }, 400, 'invalid_request', 'redirect_uri must use http or https'],
    [{ response_type: undefined }, 302, 'invalid_request', 'missing parameter: response_type'],
    [{ response_type: 'token' }, 302, 'unsupported_response_type', 'got "token"'],
    [{ scope: undefined }, 302, 'invalid_request', 'missing parameter: scope'],
    [{ state: undefined }, 302, 'invalid_request', 'missing parameter: state'],
    [{ scope: 'erp' }, 302, 'invalid_scope', 'unknown instance "erp"'],
    [
      { code_challenge: CHALLENGE, code_challenge_method: 'S512' },
      302,
      'invalid_request',
      'must be S256 or plain',
    ],
  ])('%j → %i %s', async (params, status, code, reason) => {
    const { res, entry } = await authorize(params);
    expect(res.status).toBe(status);
    refused(entry, code, reason);
  });

  it('repeated and malformed parameters', async () => {
    const base = form({ response_type: 'code', redirect_uri: REDIRECT, scope: 'crm' });
    refused(
      (await send(`/webservice/authorize/?${base}&client_id=a&client_id=b`)).entry,
      'invalid_request',
      'client_id is given more than once',
    );
    refused(
      (await send(`/webservice/authorize/?${base}&client_id=${DEMO.id}&state=a&state=b`)).entry,
      'invalid_request',
      'state is given more than once',
    );
    refused(
      (await send(`/webservice/authorize/?${base}&client_id=${DEMO.id}&state=%FF`)).entry,
      'invalid_request',
      'not valid UTF-8',
    );
  });

  it('consent: deny, no decision, unknown user, a user without access', async () => {
    const consent = (extra: Record<string, string>) =>
      send('/webservice/authorize/', {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: form({
          response_type: 'code',
          client_id: DEMO.id,
          redirect_uri: REDIRECT,
          scope: 'wiki',
          state: 'st',
          ...extra,
        }),
      });
    const denied = await consent({ decision: 'deny', user: 'alice' });
    refused(denied.entry, 'access_denied', 'denied consent');
    expect(denied.entry.user).toBe('alice');
    expect((await consent({ decision: 'deny' })).entry.user).toBeUndefined();
    refused((await consent({ decision: 'maybe' })).entry, 'invalid_request', 'without decision');
    refused((await consent({ decision: 'approve' })).entry, 'invalid_request', 'without a user');
    refused(
      (await consent({ decision: 'approve', user: 'mallory' })).entry,
      'invalid_request',
      'unknown user "mallory"',
    );
    const bob = await consent({ decision: 'approve', user: 'bob' });
    refused(bob.entry, 'invalid_scope', 'user bob cannot access instance "wiki"');
    expect(bob.entry).toMatchObject({ user: 'bob', client: DEMO.id });
  });
});

describe('API refusals (RFC 6750) and JSON-RPC errors', () => {
  it('HTTP-level: method, instance, bearer, scope', async () => {
    refused((await send('/webservice/json/crm')).entry, 'method_not_allowed', 'POST');
    refused(
      (await send('/webservice/json/erp', { method: 'POST' })).entry,
      'not_found',
      'unknown instance "erp"',
    );
    refused(
      (await send('/webservice/json/crm', { method: 'POST' })).entry,
      'invalid_token',
      'missing bearer access token',
    );
    refused(
      (
        await send('/webservice/json/crm', {
          method: 'POST',
          headers: { authorization: 'Token x' },
        })
      ).entry,
      'invalid_token',
      'not "Bearer <token>"',
    );
    refused((await rpc('nope', '{}')).entry, 'invalid_token', 'unknown access token (never issued');
    const t = await pair();
    const wiki = await rpc(t.access_token, '{}', 'wiki');
    refused(wiki.entry, 'insufficient_scope', 'not granted scope wiki');
    expect(wiki.entry).toMatchObject({ user: 'alice', client: DEMO.id });
  });

  it('every JSON-RPC error code, with the method and user', async () => {
    const { access_token: at } = await pair();
    const call = (method: unknown, params?: unknown, id: unknown = 1) =>
      JSON.stringify({ jsonrpc: '2.0', method, ...(params === undefined ? {} : { params }), id });
    const cases: [string, number, string | RegExp][] = [
      ['{', -32700, /^body is not valid JSON/],
      ['[]', -32600, 'empty batch'],
      ['7', -32600, 'request is not a JSON object'],
      ['{"jsonrpc":"1.0","method":"x","id":1}', -32600, 'jsonrpc must be "2.0"'],
      ['{"jsonrpc":"2.0","method":3,"id":1}', -32600, 'method must be a string'],
      [call('contacts.list', undefined, {}), -32600, 'id must be a string, a number or null'],
      ['{"jsonrpc":"2.0","method":"contacts.list","params":3,"id":1}', -32600, 'params must be'],
      [call('contacts.nope'), -32601, 'no method "contacts.nope" on instance crm'],
      [call('contacts.get', { id: 'one' }), -32602, 'id must be integer'],
      [
        '{"jsonrpc":"2.0","method":"contacts.get","params":{"id":1e400},"id":1}',
        -32602,
        'id must be integer',
      ],
      [call('contacts.get', {}), -32602, 'missing required param "id"'],
      [call('contacts.get', { id: 1, x: 2 }), -32602, 'unknown param "x"'],
      [call('contacts.get', [1, 2]), -32602, 'takes at most 1 params'],
      [call('rpc.discover', [1]), -32602, 'rpc.discover takes no params'],
      [call('contacts.get', { id: 3 }), -32004, 'Contact not found {"id":3}'],
      [call('contacts.crash'), -32603, 'boom'],
      // The error's data as the log shows it: its secret members masked.
      [
        call('contacts.leak'),
        -32010,
        'Boom {"sessionToken":"[redacted]","password":"[redacted]","user":"ada"}',
      ],
    ];
    for (const [body, code, reason] of cases) {
      const { res, entry } = await rpc(at, body);
      expect(res.status, body).toBe(200);
      refused(entry, code, reason);
      expect(entry).toMatchObject({ user: 'alice', client: DEMO.id });
    }
    const named = await rpc(at, call('contacts.get', { id: 'one' }));
    expect(named.entry.rpc).toEqual(['contacts.get']);
    const batch = await rpc(
      at,
      `[${call('contacts.list')},${call('contacts.nope')},${call('contacts.get', {})}]`,
    );
    expect(batch.entry.rpc).toEqual(['contacts.list', 'contacts.nope', 'contacts.get']);
    refused(batch.entry, -32601, 'no method "contacts.nope" on instance crm (+1 more: -32602)');
    // Regression: an entry listed every method and code of a batch, and a journal of big batches
    // grew past the heap. It lists 20 of each and counts the rest.
    const big = await rpc(
      at,
      `[${Array.from({ length: 30 }, () => call('contacts.nope')).join(',')}]`,
    );
    expect(big.entry.rpc).toEqual([...Array<string>(20).fill('contacts.nope'), '…10 more']);
    expect(big.entry.reason).toMatch(/\(\+29 more: (-32601, ){19}-32601, …9 more\)$/);
    const fine = await rpc(at, call('contacts.list'));
    expect(fine.entry.code).toBeUndefined();
    expect(fine.entry.reason).toBeUndefined();
  });
});

describe('refusals outside the protocol', () => {
  it('unknown path, wrong method, body too large, injected faults', async () => {
    refused((await send('/nowhere')).entry, 'not_found', 'no endpoint /nowhere');
    refused(
      (await send('/webservice/authorize', { method: 'PUT' })).entry,
      'method_not_allowed',
      'GET, POST',
    );
    refused(
      (await send('/webservice/authorize', { method: 'POST', body: 'x'.repeat(1024 * 1024 + 1) }))
        .entry,
      'invalid_request',
      'request body exceeds',
    );
    const fault = (body: unknown) =>
      app(new Request(`${BASE}/_mock/faults`, { method: 'POST', body: JSON.stringify(body) }));
    await fault({ kind: 'error', status: 503 });
    const injected = await send('/webservice/authorize', { method: 'POST' });
    expect(injected.res.status).toBe(503);
    refused(injected.entry, 'server_error', 'injected fault');
  });

  it('POST /_mock/tokens names its user and client, minted or refused', async () => {
    const mint = (body: unknown) =>
      send('/_mock/tokens', { method: 'POST', body: JSON.stringify(body) });
    const minted = await mint({ user: 'bob', scope: 'crm', client_id: OTHER.id });
    expect(minted.res.status).toBe(200);
    expect(minted.entry).toMatchObject({ user: 'bob', client: OTHER.id });
    expect(formatLogLine(minted.entry)).toContain(`user=bob client=${OTHER.id}`);
    const denied = await mint({ user: 'alice', scope: 'nowhere' });
    expect(denied.entry).toMatchObject({ user: 'alice', client: DEMO.id });
    refused(denied.entry, 'invalid_scope', 'unknown instance "nowhere"');
  });
});

describe('refusals under quirks (SPEC §7)', () => {
  it('keep their code and reason when the body is text or the quirk refuses', async () => {
    const seen: JournalEntry[] = [];
    const quirky = createMockApp({ onRequest: (e) => seen.push(e) });
    const quirks = await quirky(
      new Request(`${BASE}/_mock/quirks`, {
        method: 'POST',
        body: JSON.stringify({ errorBody: 'text', revokeUnknownToken: 'error' }),
      }),
    );
    expect(quirks.status).toBe(200);
    const res = await quirky(
      new Request(`${BASE}/webservice/authorize?${form({ ...DEMO_PARAMS, code: 'x' })}`, {
        method: 'POST',
      }),
    );
    expect(await res.text()).toBe('invalid_request');
    refused(seen.at(-1)!, 'invalid_request', 'missing parameter: grant_type');
    await quirky(
      new Request(
        `${BASE}/webservice/authorize/revoke?${form({ ...DEMO_PARAMS, token_type_hint: 'access_token', token: 'nope' })}`,
        { method: 'POST' },
      ),
    );
    refused(seen.at(-1)!, 'invalid_request', 'revokeUnknownToken');
  });
});
