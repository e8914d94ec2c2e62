import { describe, expect, it } from 'vitest';
import { exchange, getCode, login, tokenWorks } from '../helpers/mock-client.js';
import {
  runDasvc,
  spawnMock,
  startMockInProcess,
  type InProcessMock,
  type MockProcess,
} from '../helpers/mock-process.js';

// SPEC §8 through the real `dasvc mock`: reasons in the text log, `--json` lines, colour only
// when asked, and a journal as large as --journal-size. In this process, but for colour: how
// many colours a terminal takes is the process's own (chalk reads it as it loads).

async function stopped(mock: InProcessMock, use: () => Promise<void>): Promise<void> {
  let used = false;
  try {
    await use();
    used = true;
  } finally {
    // A clean stop, as after Ctrl-C; after a failure only the clean-up, not a second error.
    const code = await mock.stop();
    if (used) expect(code).toBe(130);
  }
}

async function stoppedProcess(mock: MockProcess, use: () => Promise<void>): Promise<void> {
  try {
    await use();
    expect(await mock.stop('SIGTERM')).toBe(0);
  } finally {
    mock.child.kill('SIGKILL');
  }
}

describe('dasvc mock log (SPEC §8)', () => {
  it('a refused request is understood from the log line alone', async () => {
    const mock = await startMockInProcess();
    await stopped(mock, async () => {
      const code = await getCode(mock.url, { state: 'hush-state' });
      await (await exchange(mock.url, code)).arrayBuffer();
      await (await exchange(mock.url, code)).arrayBuffer();
      await mock.waitFor('already used');
      const line = mock
        .stdout()
        .split('\n')
        .find((l) => l.includes('already used'))!;
      expect(line).toMatch(
        /^\S+Z POST \/webservice\/authorize\?\S+ 400 \d+\.\dms user=alice client=demo-client invalid_grant: code already used; its tokens were revoked$/,
      );
      expect(line).not.toContain(code);
    });
  });

  it('--json: the listening line, then one JSON object per request with the journal fields', async () => {
    const mock = await startMockInProcess([], { globals: ['--json'] });
    await stopped(mock, async () => {
      const t = await login(mock.url, { state: 'hush-state' });
      expect(await tokenWorks(mock.url, 'not-a-token')).toBe(false);
      await mock.waitFor('"invalid_token"');
      const [first, ...rest] = mock.stdout().trimEnd().split('\n');
      expect(first).toBe(`listening on ${mock.url}`);
      const entries = rest.map((l) => JSON.parse(l) as Record<string, unknown>);
      expect(entries.map((e) => `${e.method} ${e.path} ${e.status}`)).toEqual([
        'GET /webservice/authorize/ 200',
        'POST /webservice/authorize/ 302',
        'POST /webservice/authorize 200',
        'POST /webservice/json/crm 401',
      ]);
      expect(entries[2]).toMatchObject({ seq: 3, user: 'alice', client: 'demo-client' });
      expect(entries[3]).toMatchObject({
        code: 'invalid_token',
        reason:
          'unknown access token (never issued by this mock, or ended before its last restart or reset, or more than 10000 token endings ago)',
      });
      // The journal holds the very same records, and the bodies the mock read (the log does not).
      const text = await (await fetch(`${mock.url}/_mock/journal`)).text();
      const journal = JSON.parse(text) as { entries: Record<string, unknown>[] };
      expect(journal.entries.map(({ body: _, bodySize: __, ...rest }) => rest)).toEqual(entries);
      expect(journal.entries[1]!.body).toMatch(/^response_type=code&/);
      const out = mock.stdout();
      for (const secret of [t.access_token, t.refresh_token, 'hush-state', 'demo-secret']) {
        expect(out).not.toContain(secret);
        expect(text).not.toContain(secret);
      }
      // The human lines went to stderr.
      expect(mock.stderr()).toContain('users: alice (crm, wiki), bob (crm)');
    });
  });

  it('--json --quiet prints the listening line alone', async () => {
    const mock = await startMockInProcess(['--quiet'], { globals: ['--json'] });
    await stopped(mock, async () => {
      await login(mock.url);
      const journal = (await (await fetch(`${mock.url}/_mock/journal`)).json()) as {
        entries: unknown[];
      };
      expect(journal.entries.length).toBe(3);
      expect(mock.stdout()).toBe(`listening on ${mock.url}\n`);
      expect(mock.stderr()).not.toContain('/webservice/');
    });
  });

  it('colours by status class when forced (FORCE_COLOR), never with --no-color', async () => {
    const coloured = await spawnMock([], { env: { NO_COLOR: undefined, FORCE_COLOR: '1' } });
    await stoppedProcess(coloured, async () => {
      await (await fetch(`${coloured.url}/nowhere`)).arrayBuffer();
      await coloured.waitFor('no endpoint /nowhere');
      // Yellow (33) for a 4xx status and its reason.
      expect(coloured.stdout()).toContain('\u001b[33m404\u001b[39m');
      expect(coloured.stdout()).toContain('\u001b[33mnot_found: no endpoint /nowhere\u001b[39m');
    });
    const plain = await spawnMock([], {
      globals: ['--no-color'],
      env: { NO_COLOR: undefined, FORCE_COLOR: '1' },
    });
    await stoppedProcess(plain, async () => {
      await (await fetch(`${plain.url}/nowhere`)).arrayBuffer();
      await plain.waitFor('no endpoint /nowhere');
      expect(plain.stdout()).not.toContain('\u001b');
    });
  });

  it('--journal-size bounds the journal; a bad value is a usage error (exit 2)', async () => {
    const mock = await startMockInProcess(['--journal-size', '2', '--quiet']);
    await stopped(mock, async () => {
      for (let i = 0; i < 5; i++) await (await fetch(`${mock.url}/nowhere/${i}`)).arrayBuffer();
      const journal = (await (await fetch(`${mock.url}/_mock/journal`)).json()) as {
        entries: { path: string }[];
        size: number;
      };
      expect(journal.size).toBe(2);
      expect(journal.entries.map((e) => e.path)).toEqual(['/nowhere/3', '/nowhere/4']);
    });
    for (const bad of ['0', 'ten', '2000000']) {
      const r = await runDasvc(['mock', '--port', '0', '--journal-size', bad]);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain('--journal-size');
    }
  });
});
