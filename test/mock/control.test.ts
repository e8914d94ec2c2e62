import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  advance,
  exchange,
  get,
  getCode,
  login,
  mint,
  postJson,
  refresh,
  revoke,
  rpc,
  startMock,
  startMockForFile,
  tempDir,
  tokenWorks,
  withMock,
} from '../helpers/mock-client.js';
import { code as storedCode, grant, snapshot } from '../helpers/state-snapshots.js';

const mock = startMockForFile();

const json = async (res: Response) => (await res.json()) as Record<string, unknown>;

describe('/_mock/journal', () => {
  it('lists requests with secrets redacted; DELETE clears it', async () => {
    await fetch(`${mock.url}/_mock/journal`, { method: 'DELETE' });
    const code = await getCode(mock.url, { state: 'secret-state' });
    await exchange(mock.url, code);
    const { entries } = (await json(await get(`${mock.url}/_mock/journal`))) as {
      entries: Record<string, unknown>[];
    };
    expect(entries.length).toBe(3);
    expect(entries[0]).toMatchObject({
      method: 'GET',
      path: '/webservice/authorize/',
      status: 200,
    });
    expect(entries[2]).toMatchObject({
      method: 'POST',
      path: '/webservice/authorize',
      status: 200,
    });
    for (const e of entries) {
      // SPEC §8: the request fields, its position, and the explanation where it applies.
      expect(Object.keys(e).sort()).toEqual(
        [
          'durationMs',
          'method',
          'path',
          'query',
          'seq',
          'status',
          'time',
          'client',
          ...(e.method === 'GET' ? [] : ['user']),
          // The consent form's body (the token request has its parameters in the query).
          ...(e === entries[1] ? ['body', 'bodySize'] : []),
        ].sort(),
      );
      expect(typeof e.durationMs).toBe('number');
      expect(new Date(e.time as string).toISOString()).toBe(e.time);
    }
    const text = JSON.stringify(entries);
    expect(text).not.toContain(code);
    expect(text).not.toContain('demo-secret');
    expect(text).not.toContain('secret-state');
    expect(text).toContain('client_id=demo-client');
    await fetch(`${mock.url}/_mock/journal`, { method: 'DELETE' });
    expect(
      ((await json(await get(`${mock.url}/_mock/journal`))) as { entries: unknown[] }).entries,
    ).toEqual([]);
  });
});

describe('/_mock/clock', () => {
  it('GET shows now and the offset; POST advances it by a duration or seconds', async () => {
    await withMock({}, async (clockMock) => {
      const before = await json(await get(`${clockMock.url}/_mock/clock`));
      expect(before.offsetSeconds).toBe(0);
      const after = await json(await postJson(`${clockMock.url}/_mock/clock`, { advance: '1h' }));
      expect(after.offsetSeconds).toBe(3600);
      expect(
        Date.parse(after.now as string) - Date.parse(before.now as string),
      ).toBeGreaterThanOrEqual(3600_000);
      expect(
        (await json(await postJson(`${clockMock.url}/_mock/clock`, { advance: 60 }))).offsetSeconds,
      ).toBe(3660);
      expect((await postJson(`${clockMock.url}/_mock/clock`, { advance: 'soon' })).status).toBe(
        400,
      );
      expect((await postJson(`${clockMock.url}/_mock/clock`, '{nope')).status).toBe(400);
    });
  });

  it('an advance that is negative, not finite or past 100 years is 400 and moves nothing', async () => {
    const file = join(tempDir(), 'state.json');
    await withMock({ stateFile: file }, async (m) => {
      const t = await mint(m.url);
      await advance(m.url, 60);
      for (const bad of [1e300, '9'.repeat(400), -1, '99999999999d', 3.2e9, '36600d']) {
        const res = await postJson(`${m.url}/_mock/clock`, { advance: bad });
        expect(res.status).toBe(400);
        expect((await json(res)).error).toBe('invalid_request');
      }
      // 100 years in all: the offset already holds 60 s.
      expect((await postJson(`${m.url}/_mock/clock`, { advance: 3_155_760_000 })).status).toBe(400);
      const clock = await get(`${m.url}/_mock/clock`);
      expect(clock.status).toBe(200);
      expect((await json(clock)).offsetSeconds).toBe(60);
      expect((await get(`${m.url}/_mock/journal`)).status).toBe(200);
      expect(await tokenWorks(m.url, t.access_token)).toBe(true);
    });
    expect(JSON.parse(readFileSync(file, 'utf8'))).toMatchObject({ offsetSeconds: 60 });
  });
});

describe('/_mock/tokens', () => {
  it('mints a token response exactly like the token endpoint', async () => {
    const res = await postJson(`${mock.url}/_mock/tokens`, { user: 'bob', scope: 'crm' });
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const body = await json(res);
    expect(Object.keys(body).sort()).toEqual(['access_token', 'expires_in', 'refresh_token']);
    expect(body.expires_in).toBe('3600');
    const list = await (
      await rpc(mock.url, 'crm', body.access_token as string, {
        jsonrpc: '2.0',
        method: 'contacts.list',
        id: 1,
      })
    ).json();
    expect((list as { result: { id: number }[] }).result.map((c) => c.id)).toEqual([3, 4]);
    expect((await refresh(mock.url, body.refresh_token as string)).status).toBe(200);
  });

  it('client_id picks the client the tokens belong to', async () => {
    const t = await mint(mock.url, 'alice', 'crm', 'other-client');
    expect((await refresh(mock.url, t.refresh_token)).status).toBe(400);
    expect(
      (await refresh(mock.url, t.refresh_token, { id: 'other-client', secret: 'other-secret' }))
        .status,
    ).toBe(200);
  });

  it.each([
    [{ scope: 'crm' }, 'invalid_request'],
    [{ user: 'mallory', scope: 'crm' }, 'invalid_request'],
    [{ user: 'bob', scope: 'wiki' }, 'invalid_scope'],
    [{ user: 'alice', scope: 'nope' }, 'invalid_scope'],
  ])('refuses %j with 400 %s', async (body, error) => {
    const res = await postJson(`${mock.url}/_mock/tokens`, body);
    expect(res.status).toBe(400);
    expect((await json(res)).error).toBe(error);
  });

  it('refuses an unknown client_id with 401 invalid_client and the Basic challenge (SPEC §5)', async () => {
    const res = await postJson(`${mock.url}/_mock/tokens`, {
      user: 'alice',
      scope: 'crm',
      client_id: 'nobody',
    });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toMatch(/^Basic /);
    expect((await json(res)).error).toBe('invalid_client');
  });
});

describe('/_mock/reset', () => {
  it('forgets tokens, codes, journal, faults and the clock offset', async () => {
    await withMock({}, async (m) => {
      const t = await mint(m.url);
      const code = await getCode(m.url);
      await advance(m.url, 60);
      await postJson(`${m.url}/_mock/faults`, { kind: 'error', count: 5 });
      const res = await postJson(`${m.url}/_mock/reset`, {});
      expect(res.status).toBe(200);
      expect(await tokenWorks(m.url, t.access_token)).toBe(false);
      expect((await exchange(m.url, code)).status).toBe(400);
      expect((await json(await get(`${m.url}/_mock/clock`))).offsetSeconds).toBe(0);
      expect((await json(await get(`${m.url}/_mock/faults`))).faults).toEqual([]);
      const { entries } = (await json(await get(`${m.url}/_mock/journal`))) as {
        entries: unknown[];
      };
      expect(entries.length).toBe(2); // the two requests after the reset
    });
  });
});

describe('/_mock/faults', () => {
  it('error: the next N matching requests answer the status; then normal again', async () => {
    await withMock({}, async (m) => {
      const t = await mint(m.url);
      const res = await postJson(`${m.url}/_mock/faults`, {
        kind: 'error',
        count: 2,
        status: 503,
        path: '/webservice/json',
      });
      expect(((await json(res)).faults as unknown[]).length).toBe(1);
      expect((await get(`${m.url}/webservice/authorize/`)).status).toBe(400); // path does not match
      const body = { jsonrpc: '2.0', method: 'contacts.list', id: 1 };
      const first = await rpc(m.url, 'crm', t.access_token, body);
      expect(first.status).toBe(503);
      expect(await first.json()).toMatchObject({ error: 'server_error' });
      expect((await rpc(m.url, 'crm', t.access_token, body)).status).toBe(503);
      expect((await rpc(m.url, 'crm', t.access_token, body)).status).toBe(200);
      expect((await json(await get(`${m.url}/_mock/faults`))).faults).toEqual([]);
    });
  });

  it('drop: the connection closes without an answer', async () => {
    await withMock({}, async (m) => {
      await postJson(`${m.url}/_mock/faults`, { kind: 'drop', count: 1 });
      await expect(fetch(`${m.url}/webservice/authorize`)).rejects.toThrow();
      expect((await fetch(`${m.url}/webservice/authorize`)).status).toBe(400);
    });
  });

  it('latency: the answer comes after the delay, unchanged', async () => {
    await withMock({}, async (m) => {
      await postJson(`${m.url}/_mock/faults`, { kind: 'latency', count: 1, ms: 300 });
      const started = Date.now();
      const res = await fetch(`${m.url}/webservice/authorize`);
      expect(res.status).toBe(400);
      expect(Date.now() - started).toBeGreaterThanOrEqual(290);
    });
  });

  it('latency on many requests at once warns of nothing (one shutdown signal, no listener limit)', async () => {
    const warnings: Error[] = [];
    const onWarning = (warning: Error) => warnings.push(warning);
    process.on('warning', onWarning);
    try {
      await withMock({}, async (m) => {
        await postJson(`${m.url}/_mock/faults`, { kind: 'latency', count: 15, ms: 100 });
        const answers = await Promise.all(
          Array.from({ length: 15 }, () => fetch(`${m.url}/webservice/authorize`)),
        );
        expect(answers.map((a) => a.status)).toEqual(Array(15).fill(400));
      });
      await new Promise((resolve) => setImmediate(resolve));
      expect(warnings.map((w) => w.message)).toEqual([]);
    } finally {
      process.off('warning', onWarning);
    }
  });

  it('GET lists pending faults, DELETE clears them, bad bodies are 400', async () => {
    await withMock({}, async (m) => {
      await postJson(`${m.url}/_mock/faults`, { kind: 'latency', count: 3, ms: 10 });
      expect((await json(await get(`${m.url}/_mock/faults`))).faults).toEqual([
        { kind: 'latency', count: 3, ms: 10 },
      ]);
      await fetch(`${m.url}/_mock/faults`, { method: 'DELETE' });
      expect((await json(await get(`${m.url}/_mock/faults`))).faults).toEqual([]);
      for (const bad of [
        { kind: 'explode' },
        { kind: 'error', count: 0 },
        { kind: 'error', status: 200 },
        [1],
      ]) {
        expect((await postJson(`${m.url}/_mock/faults`, bad)).status).toBe(400);
      }
    });
  });

  it('unknown control paths are 404 JSON', async () => {
    const res = await get(`${mock.url}/_mock/nothing`);
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ error: 'not_found' });
  });
});

describe('--state-file', () => {
  it('codes, tokens, grants and the clock offset survive a restart; the file is 0600', async () => {
    const file = join(tempDir(), 'state.json');
    const a = await startMock({ stateFile: file });
    const t = await login(a.url);
    const rotated = (await (await refresh(a.url, t.refresh_token)).json()) as {
      access_token: string;
      refresh_token: string;
    };
    const code = await getCode(a.url);
    await advance(a.url, 120);
    await a.close();
    expect(statSync(file).mode & 0o777).toBe(0o600);
    await withMock({ stateFile: file }, async (b) => {
      expect(await tokenWorks(b.url, rotated.access_token)).toBe(true);
      expect(await tokenWorks(b.url, t.access_token)).toBe(false);
      expect((await json(await get(`${b.url}/_mock/clock`))).offsetSeconds).toBe(120);
      expect((await exchange(b.url, code)).status).toBe(200);
      // the old refresh token is still known as used after the restart (not unknown)
      const reuse = await refresh(b.url, t.refresh_token);
      expect(reuse.status).toBe(400);
      expect(await reuse.json()).toMatchObject({ error_description: 'refresh token already used' });
      expect(await tokenWorks(b.url, rotated.access_token)).toBe(true);
    });
  });

  it('after a restart, replaying an old code does not revoke an unrelated new grant', async () => {
    const file = join(tempDir(), 'state.json');
    const a = await startMock({ stateFile: file });
    const code = await getCode(a.url);
    const old = (await (await exchange(a.url, code)).json()) as { refresh_token: string };
    // Revoking the refresh token ends the grant; the used code still names its id.
    expect((await revoke(a.url, old.refresh_token, 'refresh_token')).status).toBe(200);
    await a.close();
    await withMock({ stateFile: file }, async (b) => {
      const fresh = await login(b.url);
      expect((await exchange(b.url, code)).status).toBe(400);
      expect(await tokenWorks(b.url, fresh.access_token)).toBe(true);
    });
  });

  it('writes atomically: no temp files are left behind', async () => {
    const dir = tempDir();
    const file = join(dir, 'state.json');
    const a = await startMock({ stateFile: file });
    await Promise.all(Array.from({ length: 20 }, () => mint(a.url)));
    await a.close();
    expect(readdirSync(dir)).toEqual(['state.json']);
    // Compacted on close: one snapshot line holding the 20 grants.
    const lines = readFileSync(file, 'utf8').split('\n').filter(Boolean);
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!)).toMatchObject({ version: 1, grants: expect.any(Array) });
    expect(JSON.parse(lines[0]!).grants).toHaveLength(20);
  });

  it('a corrupt state file is a startup error naming it, and is left untouched', async () => {
    const file = join(tempDir(), 'state.json');
    writeFileSync(file, '{"version":1,"codes":[');
    await expect(startMock({ stateFile: file })).rejects.toThrow(
      /state file .*state\.json is corrupt/,
    );
    expect(readFileSync(file, 'utf8')).toBe('{"version":1,"codes":[');
    writeFileSync(file, '{"version":9}');
    await expect(startMock({ stateFile: file })).rejects.toThrow(/unsupported version/);
  });

  it.each([
    ['a token that is not a string', { grants: [[1, { ...grant, access: 5 }]] }],
    ['an access token without its expiry', { grants: [[1, { ...grant, access: 'a' }]] }],
    ['a refresh token without its expiry', { grants: [[1, { ...grant, refresh: 'r' }]] }],
    ['an expiry that is not a number', { grants: [[1, { ...grant, accessExpiresAt: '1' }]] }],
    ['a grant id that is not a positive integer', { grants: [[1.5, grant]] }],
    [
      'a duplicate grant id',
      {
        grants: [
          [1, grant],
          [1, grant],
        ],
      },
    ],
    ['an unknown grant field', { grants: [[1, { ...grant, admin: true }]] }],
    ['scopes that are not strings', { grants: [[1, { ...grant, scopes: [1] }]] }],
    [
      'a bad PKCE method',
      { codes: [['c', { ...storedCode, challenge: 'x', challengeMethod: 'S512' }]] },
    ],
    ['a code grantId that is not an integer', { codes: [['c', { ...storedCode, grantId: 'g' }]] }],
    ['a code without expiry', { codes: [['c', { ...storedCode, expiresAt: undefined }]] }],
    ['a rotated token without expiry', { rotated: [['t', { grantId: 1 }]] }],
    ['a negative clock offset', { offsetSeconds: -5 }],
    ['a clock offset past 100 years', { offsetSeconds: 1e300 }],
    ['a grantSeq that is not an integer', { grantSeq: 'x' }],
    ['an unknown top-level field', { extra: [] }],
  ])('a state file with %s is corrupt: startup error, file untouched', async (_name, patch) => {
    const file = join(tempDir(), 'state.json');
    const text = snapshot(patch);
    writeFileSync(file, text);
    await expect(startMock({ stateFile: file })).rejects.toThrow(/state file .* is corrupt/);
    expect(readFileSync(file, 'utf8')).toBe(text);
  });

  it('a well-formed state file loads (every optional field in use)', async () => {
    const file = join(tempDir(), 'state.json');
    writeFileSync(
      file,
      snapshot({
        grantSeq: 7,
        codes: [
          ['c', { ...storedCode, challenge: 'x'.repeat(43), challengeMethod: 'S256', grantId: 7 }],
        ],
        grants: [
          [
            7,
            { ...grant, access: 'a', accessExpiresAt: 4e12, refresh: 'r', refreshExpiresAt: 4e12 },
          ],
        ],
        rotated: [['old', { grantId: 7, expiresAt: 4e12 }]],
      }),
    );
    await withMock({ stateFile: file }, async (m) => {
      expect(await tokenWorks(m.url, 'a')).toBe(true);
    });
  });

  it('a missing state file is a fresh start', async () => {
    const file = join(tempDir(), 'new.json');
    const m = await startMock({ stateFile: file });
    await m.close();
    expect(existsSync(file)).toBe(false);
  });
});
