import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  copyFixtures,
  exchange,
  advance,
  form,
  oauthErrorOf,
  refresh,
  getCode,
  login,
  tempDir,
  tokenWorks,
} from '../helpers/mock-client.js';
import { runDasvc, spawnMock, startMockInProcess } from '../helpers/mock-process.js';
import { Sink } from '../helpers/cli-in-process.js';
import { runMock } from '../../src/mock/adapters/run-mock.js';

describe('dasvc mock (SPEC §3)', () => {
  it('first stdout line is `listening on <base_url>`, then the demo client; logs requests redacted', async () => {
    const mock = await startMockInProcess();
    try {
      expect(mock.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      const lines = mock.stdout().split('\n');
      expect(lines[0]).toBe(`listening on ${mock.url}`);
      await mock.waitFor('client_id=demo-client client_secret=demo-secret');
      const code = await getCode(mock.url, { state: 'hush-state' });
      const tokens = (await (await exchange(mock.url, code)).json()) as {
        access_token: string;
        refresh_token: string;
      };
      expect(await tokenWorks(mock.url, tokens.access_token)).toBe(true);
      await mock.waitFor('POST /webservice/json/crm 200');
      // The refresh token travels in the query, where the log would show it unmasked.
      expect((await refresh(mock.url, tokens.refresh_token)).status).toBe(200);
      await mock.waitFor('POST /webservice/authorize/refresh_token');
      const out = mock.stdout();
      // SPEC §8: time, method, path (secrets masked), status, duration, then who.
      const time = '\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}Z';
      expect(out).toMatch(
        new RegExp(
          `^${time} GET /webservice/authorize/\\?\\S+ 200 \\d+\\.\\dms client=demo-client$`,
          'm',
        ),
      );
      expect(out).toMatch(
        new RegExp(
          `^${time} POST /webservice/authorize\\?\\S+ 200 \\d+\\.\\dms user=alice client=demo-client$`,
          'm',
        ),
      );
      expect(out).toMatch(
        new RegExp(
          `^${time} POST /webservice/json/crm 200 \\d+\\.\\dms rpc=contacts.list user=alice client=demo-client$`,
          'm',
        ),
      );
      expect(out).toMatch(
        /^\S+ POST \/webservice\/authorize\/refresh_token\?\S*refresh_token=\[redacted\]\S* 200 /m,
      );
      expect(out).not.toContain('\u001b');
      for (const secret of [code, tokens.access_token, tokens.refresh_token, 'hush-state']) {
        expect(out).not.toContain(secret);
      }
      expect(out.split('\n').filter((l) => l.includes('demo-secret'))).toHaveLength(1); // the banner only
    } finally {
      await mock.stop();
    }
  });

  it('as a process: the listening line first, a request served, SIGTERM exits 0', async () => {
    const mock = await spawnMock();
    try {
      expect(mock.stdout().split('\n')[0]).toBe(`listening on ${mock.url}`);
      expect((await fetch(`${mock.url}/_mock/journal`)).status).toBe(200);
      expect(await mock.stop('SIGTERM')).toBe(0);
      expect(mock.stderr()).toBe('');
    } finally {
      mock.child.kill('SIGKILL');
    }
  });

  it('--quiet prints the listening line alone; Ctrl-C (SIGINT) closes it cleanly and exits 130', async () => {
    const mock = await spawnMock(['--quiet']);
    try {
      await login(mock.url);
      const res = await fetch(`${mock.url}/_mock/journal`);
      expect(((await res.json()) as { entries: unknown[] }).entries.length).toBeGreaterThan(0);
      expect(mock.stdout()).toBe(`listening on ${mock.url}\n`);
      // SPEC §3: Ctrl-C anywhere exits 130; stdout stays the listening line alone.
      expect(await mock.stop('SIGINT')).toBe(130);
      expect(mock.stdout()).toBe(`listening on ${mock.url}\n`);
    } finally {
      mock.child.kill('SIGKILL');
    }
  });

  it("runMock stops on its io's signal: SIGTERM as a supervisor's stop, anything else as Ctrl-C", async () => {
    for (const [reason, expected] of [
      ['SIGTERM', 'SIGTERM'],
      [undefined, 'SIGINT'],
    ] as const) {
      // --quiet: the listening line is all it writes.
      let written!: (text: string) => void;
      const line = new Promise<string>((resolve) => (written = resolve));
      const stop = new AbortController();
      const running = runMock(
        { port: 0, quiet: true },
        { stdout: { write: written }, stderr: new Sink(), env: {}, stop: stop.signal },
      );
      const url = /^listening on (http:\/\/127\.0\.0\.1:\d+)\n$/.exec(await line)![1]!;
      expect((await fetch(`${url}/_mock/journal`)).status).toBe(200);
      stop.abort(reason);
      // Resolved once the server has closed.
      expect(await running).toBe(expected);
    }
  });

  it('--auto-approve, --code-ttl and --access-ttl are honoured', async () => {
    const mock = await startMockInProcess([
      '--auto-approve',
      'alice',
      '--access-ttl',
      '90s',
      '--code-ttl',
      '15m',
      '--quiet',
    ]);
    try {
      const q = form({
        response_type: 'code',
        client_id: 'demo-client',
        redirect_uri: 'http://127.0.0.1:9/cb',
        scope: 'wiki',
        state: 's',
      });
      const res = await fetch(`${mock.url}/webservice/authorize/?${q}`, { redirect: 'manual' });
      expect(res.status).toBe(302);
      const code = new URL(res.headers.get('location')!).searchParams.get('code')!;
      const body = (await (await exchange(mock.url, code)).json()) as { expires_in: string };
      expect(body.expires_in).toBe('90');
      // A code lives 15 minutes here, not the default hour.
      const late = new URL(
        (await fetch(`${mock.url}/webservice/authorize/?${q}`, { redirect: 'manual' })).headers.get(
          'location',
        )!,
      ).searchParams.get('code')!;
      await advance(mock.url, '16m');
      expect(await oauthErrorOf(await exchange(mock.url, late))).toMatchObject({
        status: 400,
        error: 'invalid_grant',
      });
    } finally {
      await mock.stop();
    }
  });

  it('--host is where it listens: an address not of this machine cannot be bound (exit 2)', async () => {
    const r = await runDasvc(['mock', '--port', '0', '--host', '192.0.2.1']);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain('192.0.2.1');
    expect(r.stderr).toContain('hint: choose another --port (0 picks a free one) or --host');
  });

  it('--state-file keeps tokens across a restart', async () => {
    const file = join(tempDir(), 'state.json');
    const first = await startMockInProcess(['--state-file', file, '--quiet']);
    let tokens;
    try {
      tokens = await login(first.url);
    } finally {
      expect(await first.stop()).toBe(130);
    }
    const second = await startMockInProcess(['--state-file', file, '--quiet']);
    try {
      expect(await tokenWorks(second.url, tokens.access_token)).toBe(true);
    } finally {
      await second.stop();
    }
  });

  it('a broken fixture exits 2 naming the file and the problem', async () => {
    const dir = copyFixtures();
    writeFileSync(join(dir, 'users.json'), '{"alice": {"instances": ["crm", "nowhere"]}}');
    const r = await runDasvc(['mock', '--port', '0', '--fixtures', dir]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /users\.json: \/alice\/instances\/1: user "alice": unknown instance "nowhere"/,
    );
    expect(r.stdout).toBe('');
  });

  it('a fixture handler module that does not load exits 2 naming it', async () => {
    const dir = copyFixtures();
    writeFileSync(join(dir, 'instances', 'crm.mjs'), 'export const nothing = 1;');
    const r = await runDasvc(['mock', '--port', '0', '--fixtures', dir]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /crm\.json: method "contacts\.get": .*crm\.mjs exports no function "getContact"/,
    );
  });

  it('invalid JSON in an instance file exits 2 naming it', async () => {
    const dir = copyFixtures();
    writeFileSync(join(dir, 'instances', 'wiki.json'), '{"methods": [');
    const r = await runDasvc(['mock', '--port', '0', '--fixtures', dir]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/wiki\.json: not valid JSON/);
  });

  it.each([
    [['--auto-approve', 'mallory'], /unknown user "mallory"/],
    [['--access-ttl', 'soon'], /--access-ttl/],
    [['--code-ttl', '0'], /--code-ttl \(option codeTtl\) must be between 1s and 100 years/],
    [['--access-ttl', '0'], /--access-ttl \(option accessTtl\) must be between 1s and 100 years/],
    [
      ['--refresh-ttl', '0'],
      /--refresh-ttl \(option refreshTtl\) must be between 1s and 100 years/,
    ],
    [
      ['--access-ttl', '999ms'],
      /--access-ttl \(option accessTtl\) must be between 1s and 100 years/,
    ],
    [['--port', 'http'], /--port/],
    [['--state-file', '/dev/null/x'], /state file/],
  ])('%j exits 2', async (args, message) => {
    const r = await runDasvc(['mock', '--port', '0', ...args]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
  });

  it.each([
    ['garbage', 'not valid JSON'],
    [
      '{"version":1,"offsetSeconds":0,"codes":[],"grants":[[1,{"clientId":"demo-client","user":"alice","scopes":["crm"],"access":5}]],"rotated":[]}',
      'is corrupt: /grants/0/1: needs "accessExpiresAt" beside "access"',
    ],
  ])('a corrupt --state-file (%s) exits 2 naming it, untouched', async (text, problem) => {
    const file = join(tempDir(), 'state.json');
    writeFileSync(file, text);
    const r = await runDasvc(['mock', '--port', '0', '--state-file', file]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(file);
    expect(r.stderr).toContain(problem);
    expect(readFileSync(file, 'utf8')).toBe(text);
  });

  it('a port in use exits 2; --json names it listen_failed, as the login does', async () => {
    const mock = await startMockInProcess(['--quiet']);
    try {
      const port = new URL(mock.url).port;
      const r = await runDasvc(['mock', '--port', port]);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/EADDRINUSE/);
      const json = await runDasvc(['--json', 'mock', '--port', port]);
      expect(json.code).toBe(2);
      expect(JSON.parse(json.stdout).error).toMatchObject({
        code: 'listen_failed',
        exitCode: 2,
        message: `cannot listen on 127.0.0.1:${port}: EADDRINUSE`,
      });
    } finally {
      await mock.stop();
    }
  });
});
