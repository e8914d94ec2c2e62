import { describe, expect, it } from 'vitest';
import { createMockApp } from '../../../src/mock/index.js';
import {
  BODY_EXCERPT,
  bodyExcerpt,
  Journal,
  type JournalEntry,
  type JournalRecord,
} from '../../../src/mock/core/journal.js';
import { formatLogLine } from '../../../src/mock/core/log-line.js';
import { UsageError } from '../../../src/errors.js';

const BASE = 'http://127.0.0.1:8080';

/** A token minted for alice on crm through the control API, as a test's client would hold it. */
async function mintForAlice(
  app: (request: Request) => Promise<Response>,
): Promise<{ access_token: string }> {
  const minted = await app(
    new Request(`${BASE}/_mock/tokens`, {
      method: 'POST',
      body: JSON.stringify({ user: 'alice', scope: 'crm' }),
    }),
  );
  return (await minted.json()) as { access_token: string };
}

function record(i: number, query = ''): JournalRecord {
  return {
    seq: 0,
    time: Date.UTC(2030, 0, 1) + i,
    method: 'GET',
    path: `/p/${i}`,
    query,
    status: 200,
    durationMs: 0.5,
    note: undefined,
    body: undefined,
    bodySize: 0,
    authorization: undefined,
  };
}

describe('Journal: a bounded ring buffer (SPEC §8)', () => {
  it('keeps the last `size` records in order, numbered from 1, across wrap-around', () => {
    const journal = new Journal(3);
    for (let i = 1; i <= 7; i++) journal.add(record(i));
    expect(journal.list().map((e) => e.seq)).toEqual([5, 6, 7]);
    expect(journal.list().map((e) => e.path)).toEqual(['/p/5', '/p/6', '/p/7']);
    expect(journal.info()).toEqual({ last: 7, size: 3, epoch: 0 });
  });

  it('`after` returns only newer entries, `limit` only the newest of them', () => {
    const journal = new Journal(10);
    for (let i = 1; i <= 6; i++) journal.add(record(i));
    expect(journal.list(4).map((e) => e.seq)).toEqual([5, 6]);
    expect(journal.list(6)).toEqual([]);
    expect(journal.list(0, 2).map((e) => e.seq)).toEqual([5, 6]);
    expect(journal.list(1, 100).map((e) => e.seq)).toEqual([2, 3, 4, 5, 6]);
  });

  it('a clear empties it, bumps the epoch and never reuses a seq', () => {
    const journal = new Journal(4);
    for (let i = 1; i <= 3; i++) journal.add(record(i));
    journal.clear();
    expect(journal.list()).toEqual([]);
    journal.add(record(9));
    expect(journal.list()).toMatchObject([{ seq: 4, path: '/p/9' }]);
    expect(journal.info()).toEqual({ last: 4, size: 4, epoch: 1 });
  });

  it('masks secrets of the query when read', () => {
    const journal = new Journal(2);
    journal.add(record(1, 'code=abc&state=xyz&scope=crm'));
    expect(journal.list()[0]!.query).toBe('code=[redacted]&state=[redacted]&scope=crm');
  });
});

describe('log line (SPEC §8)', () => {
  const entry: JournalEntry = {
    seq: 1,
    time: '2030-01-01T00:00:00.000Z',
    method: 'POST',
    path: '/webservice/json/crm',
    query: '',
    status: 200,
    durationMs: 1.234,
    rpc: ['contacts.get', 'contacts.list'],
    user: 'alice',
    client: 'demo-client',
    code: -32602,
    reason: 'id must be integer, got string',
  };

  it('time, method, path, status, duration, then rpc/user/client, then code: reason', () => {
    expect(formatLogLine(entry)).toBe(
      '2030-01-01T00:00:00.000Z POST /webservice/json/crm 200 1.2ms rpc=contacts.get,contacts.list user=alice client=demo-client -32602: id must be integer, got string',
    );
  });

  it('user input cannot forge lines or drive the terminal; spaced values are quoted', () => {
    const line = formatLogLine({
      ...entry,
      client: 'evil\n2030-01-01T00:00:00.000Z GET / 200 0.1ms',
      user: 'a b',
      reason: 'x\u001b[31m',
    });
    expect(line.split('\n')).toHaveLength(1);
    expect(line).not.toContain('\u001b');
    expect(line).toContain('user="a b"');
    expect(line).toContain('\\u001b[31m');
    // A quoted value too: JSON.stringify leaves C1 and bidirectional controls as they are.
    const quoted = formatLogLine({ ...entry, rpc: ['a b\u009b2J\u202e'] });
    expect(quoted).toContain('rpc="a b\\u009b2J\\u202e"');
    for (const raw of ['\u009b', '\u202e']) expect(quoted).not.toContain(raw);
  });

  it('a painter colours the status and the refusal by class, never the rest', () => {
    const calls: [number, string][] = [];
    const line = formatLogLine(entry, (status, text) => {
      calls.push([status, text]);
      return `<${text}>`;
    });
    // A JSON-RPC error travels in a 200 but is painted as a refusal.
    expect(calls).toEqual([
      [200, '200'],
      [400, '-32602: id must be integer, got string'],
    ]);
    expect(line).toContain(' <200> 1.2ms ');
  });

  it('a dropped connection shows as such', () => {
    const line = formatLogLine({ ...entry, status: 0, rpc: undefined, code: 'dropped' });
    expect(line).toContain(' dropped 1.2ms');
  });
});

describe('journal through the app', () => {
  it('journalSize bounds GET /_mock/journal; after/limit page it; bad values are refused', async () => {
    const app = createMockApp({ journalSize: 5 });
    for (let i = 0; i < 12; i++) await app(new Request(`${BASE}/nowhere/${i}`));
    const read = async (query = '') =>
      (await (await app(new Request(`${BASE}/_mock/journal${query}`))).json()) as {
        entries: JournalEntry[];
        last: number;
        size: number;
      };
    const all = await read();
    expect(all.entries.map((e) => e.path)).toEqual([7, 8, 9, 10, 11].map((i) => `/nowhere/${i}`));
    expect(all).toMatchObject({ last: 12, size: 5 });
    expect((await read('?after=10')).entries.map((e) => e.seq)).toEqual([11, 12]);
    expect((await read('?limit=1')).entries.map((e) => e.seq)).toEqual([12]);
    const bad = await app(new Request(`${BASE}/_mock/journal?after=-1`));
    expect(bad.status).toBe(400);
  });

  it.each([0, -1, 1.5, 1_000_001, Number.NaN])('journalSize %s is a usage error', (size) => {
    expect(() => createMockApp({ journalSize: size })).toThrow(UsageError);
  });

  it('control reads are neither journaled nor logged; control changes are logged', async () => {
    const lines: string[] = [];
    const app = createMockApp({ log: (l) => lines.push(l) });
    await app(new Request(`${BASE}/_mock/journal`));
    await app(new Request(`${BASE}/_mock/`));
    // Regression: the dashboard's address without its slash, and HEAD, were journaled and logged.
    await app(new Request(`${BASE}/_mock`, { redirect: 'manual' }));
    await app(new Request(`${BASE}/_mock/`, { method: 'HEAD' }));
    expect(lines).toEqual([]);
    await app(new Request(`${BASE}/_mock/reset`, { method: 'POST' }));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/ POST \/_mock\/reset 200 /);
    const { entries } = (await (await app(new Request(`${BASE}/_mock/journal`))).json()) as {
      entries: unknown[];
    };
    expect(entries).toEqual([]);
  });
});

/** A token request of the demo client by HTTP Basic, with `form` as its body. */
function tokenFormWithBasic(form: string): Request {
  return new Request(`${BASE}/webservice/authorize`, {
    method: 'POST',
    headers: {
      authorization: `Basic ${Buffer.from('demo-client:demo-secret').toString('base64')}`,
      'content-type': 'application/x-www-form-urlencoded',
    },
    body: form,
  });
}

describe('request bodies in the journal', () => {
  it('an excerpt is the start of the body itself, whether a Buffer within a larger one or a view', () => {
    // A body as node:http hands it over: a slice of a bigger buffer, other bytes on both sides.
    const text = `{"ab":"${'é'.repeat(600)}"}`;
    const pool = Buffer.from(`xxxx${text}yyyy`);
    const body = pool.subarray(4, 4 + Buffer.byteLength(text));
    const expected = Buffer.from(text).subarray(0, BODY_EXCERPT).toString('utf8');
    expect(bodyExcerpt(body)).toBe(expected);
    // Cut inside a two-byte character: decoded as the whole-buffer way decodes it.
    expect(expected.endsWith('\uFFFD')).toBe(true);
    const view = new Uint8Array(pool.buffer, pool.byteOffset + 4, Buffer.byteLength(text));
    expect(bodyExcerpt(view)).toBe(expected);
    expect(bodyExcerpt(pool.subarray(4, 9))).toBe('{"ab"');
    expect(bodyExcerpt(Buffer.alloc(0))).toBeUndefined();
    expect(bodyExcerpt(undefined)).toBeUndefined();
  });
  it('keeps the start of each body read, secrets masked; the log line never carries it', async () => {
    const entries: JournalEntry[] = [];
    const app = createMockApp({ onRequest: (entry) => entries.push(entry) });
    const form =
      'grant_type=authorization_code&client_id=demo-client&client_secret=demo-secret&code=c1';
    await app(
      new Request(`${BASE}/webservice/authorize`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: form,
      }),
    );
    const long = JSON.stringify({
      jsonrpc: '2.0',
      method: 'x',
      params: { text: 'y'.repeat(5000) },
    });
    const minted = await mintForAlice(app);
    await app(
      new Request(`${BASE}/webservice/json/crm`, {
        method: 'POST',
        headers: { authorization: `Bearer ${minted.access_token}` },
        body: long,
      }),
    );
    // A refusal before the body is read keeps none (the mock never waits for it).
    await app(new Request(`${BASE}/webservice/json/crm`, { method: 'POST', body: '{"a":1}' }));
    const journal = (await (await app(new Request(`${BASE}/_mock/journal`))).json()) as {
      entries: JournalEntry[];
    };
    const [token, api, refused] = journal.entries;
    expect(token!.body).toBe(
      'grant_type=authorization_code&client_id=demo-client&client_secret=[redacted]&code=[redacted]',
    );
    expect(token!.bodySize).toBe(form.length);
    expect(api!.body).toBe(long.slice(0, 1024));
    expect(api!.bodySize).toBe(long.length);
    expect(refused!.body).toBeUndefined();
    expect(entries.filter((e) => e.path.startsWith('/webservice/'))).toHaveLength(3);
    for (const entry of entries) expect(entry).not.toHaveProperty('body');
  });

  it('masks the request’s own bearer token in its body, under any name and encoded', async () => {
    const app = createMockApp({ log: () => undefined });
    const minted = await mintForAlice(app);
    const token = minted.access_token;
    const call = (body: string, authorization: string) =>
      app(
        new Request(`${BASE}/webservice/json/crm`, {
          method: 'POST',
          headers: { authorization },
          body,
        }),
      );
    // The caller's own bearer token as a param named like nothing secret, plain and URL-encoded.
    await call(
      JSON.stringify({
        jsonrpc: '2.0',
        method: 'contacts.get',
        params: { id: token, again: encodeURIComponent(`${token}/`) },
        id: 1,
      }),
      `Bearer ${token}`,
    );
    const journal = (await (await app(new Request(`${BASE}/_mock/journal`))).json()) as {
      entries: JournalEntry[];
    };
    // The same token cut in two by the excerpt's end: its start is not shown either.
    const cut = JSON.stringify({
      jsonrpc: '2.0',
      method: 'x',
      params: { pad: '', id: token },
      id: 2,
    });
    const at = cut.indexOf(token);
    await call(
      cut.replace('"pad":""', `"pad":"${'p'.repeat(BODY_EXCERPT - at - 20)}"`),
      `Bearer ${token}`,
    );
    const journal2 = (await (await app(new Request(`${BASE}/_mock/journal`))).json()) as {
      entries: JournalEntry[];
    };
    const tail = journal2.entries.at(-1)!;
    expect(tail.bodySize).toBeGreaterThan(BODY_EXCERPT);
    expect(tail.body!.endsWith('[redacted]')).toBe(true);
    expect(tail.body).not.toContain(token.slice(0, 12));
    const bearer = journal.entries.at(-1)!;
    expect(bearer.bodySize).toBeGreaterThan(0);
    expect(bearer.body).toContain('"id":"[redacted]"');
    expect(bearer.body).not.toContain(token);
    expect(bearer.body).not.toContain(encodeURIComponent(token));
    await app.close();
  });

  it('masks a Basic client secret that the excerpt’s end cuts in two', async () => {
    const app = createMockApp({ log: () => undefined });
    const tail = '&note=demo-secret';
    // The cut falls after "demo-se": the start of the secret the Authorization header carries.
    const form = `grant_type=x&pad=${'p'.repeat(BODY_EXCERPT - 17 - tail.length + 4)}${tail}`;
    await app(tokenFormWithBasic(form));
    const read = async () =>
      (
        (await (await app(new Request(`${BASE}/_mock/journal`))).json()) as {
          entries: JournalEntry[];
        }
      ).entries.at(-1)!;
    const entry = await read();
    expect(entry.bodySize).toBeGreaterThan(BODY_EXCERPT);
    expect(entry.body!.endsWith('&note=[redacted]')).toBe(true);
    // Masked once: a second read shows the same.
    expect((await read()).body).toBe(entry.body);
    await app.close();
  });

  it('leaves an excerpt whose end is only the start of the header, not of its credentials', async () => {
    const app = createMockApp({ log: () => undefined });
    const tail = '&note=Basic';
    const form = `grant_type=x&pad=${'p'.repeat(BODY_EXCERPT - 17 - tail.length)}${tail}&more=1`;
    await app(tokenFormWithBasic(form));
    const { entries } = (await (await app(new Request(`${BASE}/_mock/journal`))).json()) as {
      entries: JournalEntry[];
    };
    const entry = entries.at(-1)!;
    expect(entry.bodySize).toBeGreaterThan(BODY_EXCERPT);
    expect(entry.body!.endsWith('&note=Basic')).toBe(true);
    await app.close();
  });
});

describe('GET/DELETE /_mock/grants', () => {
  it('lists grants with user, client, scope and virtual expiry; DELETE revokes every token', async () => {
    let wall = Date.UTC(2030, 0, 1);
    const app = createMockApp({ now: () => wall });
    const post = (path: string, body: unknown) =>
      app(new Request(`${BASE}${path}`, { method: 'POST', body: JSON.stringify(body) }));
    const minted = (await (
      await post('/_mock/tokens', { user: 'bob', scope: 'crm', client_id: 'other-client' })
    ).json()) as { access_token: string };
    await post('/_mock/tokens', { user: 'alice', scope: 'crm wiki' });
    const list = async () =>
      (
        (await (await app(new Request(`${BASE}/_mock/grants`))).json()) as {
          grants: { id: number; user: string; accessExpiresAt: string | null }[];
        }
      ).grants;
    const grants = await list();
    expect(grants).toEqual([
      {
        id: 2,
        user: 'alice',
        client: 'demo-client',
        scopes: ['crm', 'wiki'],
        accessExpiresAt: '2030-01-01T01:00:00.000Z',
        refreshExpiresAt: '2030-01-01T01:00:00.000Z',
      },
      expect.objectContaining({ id: 1, user: 'bob', client: 'other-client', scopes: ['crm'] }),
    ]);
    const works = async () =>
      (
        await app(
          new Request(`${BASE}/webservice/json/crm`, {
            method: 'POST',
            headers: { authorization: `Bearer ${minted.access_token}` },
            body: '{"jsonrpc":"2.0","method":"contacts.list","id":1}',
          }),
        )
      ).status;
    expect(await works()).toBe(200);
    const revoked = await app(new Request(`${BASE}/_mock/grants/1`, { method: 'DELETE' }));
    expect(await revoked.json()).toEqual({ revoked: 1 });
    expect(await works()).toBe(401);
    expect((await list()).map((g) => g.id)).toEqual([2]);
    expect((await app(new Request(`${BASE}/_mock/grants/1`, { method: 'DELETE' }))).status).toBe(
      404,
    );
    expect((await app(new Request(`${BASE}/_mock/grants/x`, { method: 'DELETE' }))).status).toBe(
      404,
    );
    expect((await app(new Request(`${BASE}/_mock/grants/2`))).status).toBe(405);
    // Past expiry on the virtual clock the grant is gone from the list.
    wall += 2 * 3600_000;
    expect(await list()).toEqual([]);
  });
});

describe('GET /_mock/ (dashboard)', () => {
  it('is self-contained HTML whose CSP allows only its own script and style', async () => {
    const res = await createMockApp()(new Request(`${BASE}/_mock/`));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const csp = res.headers.get('content-security-policy')!;
    expect(csp).toContain("default-src 'none'");
    expect(csp).toMatch(/script-src 'sha256-[A-Za-z0-9+/]+=*'(;|$)/);
    expect(csp).toContain("connect-src 'self'");
    const html = await res.text();
    expect(html).not.toMatch(/(src|href)=["']?(https?:)?\/\//);
    expect(html).toContain('<script>');
  });

  // Regression: a browser opening the dashboard's address spent a fault meant for the service.
  it('/_mock takes no injected fault', async () => {
    const app = createMockApp();
    const fault = { kind: 'error', count: 1, status: 503 };
    await app(new Request(`${BASE}/_mock/faults`, { method: 'POST', body: JSON.stringify(fault) }));
    const bare = await app(new Request(`${BASE}/_mock`, { redirect: 'manual' }));
    expect(bare.status).toBe(302);
    expect((await app(new Request(`${BASE}/favicon.ico`))).status).toBe(503);
  });

  it('/_mock without its slash redirects to the dashboard, under a base path too', async () => {
    const plain = await createMockApp()(new Request(`${BASE}/_mock`, { redirect: 'manual' }));
    expect(plain.status).toBe(302);
    expect(plain.headers.get('location')).toBe('/_mock/');
    const app = createMockApp({ basePath: '/das' });
    const based = await app(new Request(`${BASE}/das/_mock`, { redirect: 'manual' }));
    expect(based.headers.get('location')).toBe('/das/_mock/');
    expect((await app(new Request(`${BASE}/das/_mock/`))).status).toBe(200);
  });
});
