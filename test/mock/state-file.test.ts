import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createMockApp, type MockApp } from '../../src/mock/index.js';
import {
  DEMO,
  exchange,
  form,
  getCode,
  mint,
  refresh,
  startMock,
  tempDir,
  tokenWorks,
  type TokenBody,
} from '../helpers/mock-client.js';
import { spawnMock } from '../helpers/mock-process.js';

/** The made-up base URL of the mock app called in-process. */
const APP = 'http://das.test';

/** contacts.list status with this access token, asked of the app in-process (200 = token works). */
async function worksAt(app: MockApp, accessToken: string): Promise<boolean> {
  const response = await app(
    new Request(`${APP}/webservice/json/crm`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${accessToken}` },
      body: '{"jsonrpc":"2.0","method":"contacts.list","id":1}',
    }),
  );
  await response.arrayBuffer();
  return response.status === 200;
}

/** The status of a refresh with this refresh token, asked of the app in-process. */
/** The answer to a refresh: its status and, for a refusal, why. */
async function refreshAt(app: MockApp, refreshToken: string): Promise<string> {
  const query = form({
    client_id: DEMO.id,
    client_secret: DEMO.secret,
    grant_type: 'refresh_token',
    refresh_token: refreshToken,
  });
  const response = await app(
    new Request(`${APP}/webservice/authorize/refresh_token?${query}`, { method: 'POST' }),
  );
  const body = (await response.json()) as { error_description?: string };
  return `${response.status} ${body.error_description ?? ''}`.trim();
}

/** Runs `job` over `items`, `width` at a time. */
async function pool<T, R>(items: T[], width: number, job: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < items.length) {
        const i = next++;
        results[i] = await job(items[i]!);
      }
    }),
  );
  return results;
}

describe('--state-file as a journal: answered tokens survive, a bad file is said and left alone', () => {
  it('regression: kill -9 right after 2,000 mints loses no answered token', async () => {
    const file = join(tempDir(), 'state.json');
    const first = await spawnMock(['--state-file', file, '--quiet']);
    let minted: TokenBody[];
    let rotated: TokenBody;
    let oldRefresh: string;
    try {
      const code = await getCode(first.url);
      const exchanged = (await (await exchange(first.url, code)).json()) as TokenBody;
      oldRefresh = exchanged.refresh_token;
      minted = await pool(
        Array.from({ length: 2000 }, (_, i) => i),
        16,
        () => mint(first.url),
      );
      rotated = (await (await refresh(first.url, oldRefresh)).json()) as TokenBody;
    } finally {
      // 0 ms after the last answer: no flush, no close.
      first.child.kill('SIGKILL');
    }
    await first.stop('SIGKILL');
    // What the killed process wrote, read by a mock started on the file; its answers are asked
    // in-process: the HTTP server was the point of the first mock only, which had to answer.
    const second = createMockApp({ stateFile: file });
    try {
      const works = await pool([...minted, rotated], 16, (t) => worksAt(second, t.access_token));
      expect(works.filter((w) => !w).length).toBe(0);
      // The rotation is kept too: the old refresh token is refused as used, the new pair works on.
      // Known as used (an unknown token would be refused as unknown, expired or revoked).
      expect(await refreshAt(second, oldRefresh)).toBe('400 refresh token already used');
      expect(await worksAt(second, rotated.access_token)).toBe(true);
    } finally {
      await second.close();
    }
    // Compacted on close: one snapshot line.
    const lines = readFileSync(file, 'utf8').split('\n').filter(Boolean);
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!)).toMatchObject({ version: 1, grants: expect.any(Array) });
  });

  it('a journal line cut short at the end is dropped; a bad line before it is a corrupt file, untouched', async () => {
    const file = join(tempDir(), 'state.json');
    const a = await startMock({ stateFile: file });
    const t = await mint(a.url);
    const u = await mint(a.url);
    // Not closed: the file is the snapshot and the journal of the second mint.
    const text = readFileSync(file, 'utf8');
    expect(text.split('\n').length).toBeGreaterThan(2);
    await a.close();
    const cut = `${text}{"kind":"grant","id":9,"rec`;
    writeFileSync(file, cut);
    const b = await startMock({ stateFile: file });
    try {
      expect(await tokenWorks(b.url, t.access_token)).toBe(true);
      expect(await tokenWorks(b.url, u.access_token)).toBe(true);
    } finally {
      await b.close();
    }
    const lines = text.trimEnd().split('\n');
    for (const bad of [
      '{"kind":"grant","id":9,"rec',
      '{"kind":"nope"}',
      '{"kind":"clock","offsetSeconds":-1}',
      // Regression: quoting a value nested too deep overflowed the stack (exit 1, a stack trace).
      `{"kind":${'['.repeat(20_000)}${']'.repeat(20_000)}}`,
    ]) {
      const broken = [lines[0], bad, ...lines.slice(1)].join('\n') + '\n';
      writeFileSync(file, broken);
      await expect(startMock({ stateFile: file }), bad).rejects.toThrow(
        /state file .*state\.json is corrupt: line 2/,
      );
      expect(readFileSync(file, 'utf8')).toBe(broken);
    }
  });

  // Regression: a start-up compaction that could not write was a stack trace (exit 1).
  it('a state file whose start-up compaction cannot be written is a start-up error naming it', async () => {
    const dir = tempDir();
    const file = join(dir, 'state.json');
    const a = await startMock({ stateFile: file });
    await mint(a.url);
    await a.close();
    const before = readFileSync(file, 'utf8');
    // The compaction's temp file cannot be made: a folder stands where it would go.
    mkdirSync(join(dir, `.state.json.${process.pid}.tmp`));
    await expect(startMock({ stateFile: file })).rejects.toThrow(
      expect.objectContaining({
        name: 'UsageError',
        message: expect.stringMatching(/^cannot write state file .*state\.json: .*EISDIR/),
      }),
    );
    expect(readFileSync(file, 'utf8')).toBe(before);
  });

  it('closing when the compaction cannot be written keeps the journal, and the next start replays it', async () => {
    const dir = tempDir();
    const file = join(dir, 'state.json');
    const a = await startMock({ stateFile: file });
    await mint(a.url);
    const t = await mint(a.url);
    mkdirSync(join(dir, `.state.json.${process.pid}.tmp`));
    await a.close(); // threw before: a stack trace at SIGTERM
    rmSync(join(dir, `.state.json.${process.pid}.tmp`), { recursive: true });
    const again = await startMock({ stateFile: file });
    try {
      expect(await tokenWorks(again.url, t.access_token)).toBe(true);
    } finally {
      await again.close();
    }
  });

  it('a state file in a folder that does not exist is a start-up error naming it, not a 500 per mint', async () => {
    const file = join(tempDir(), 'missing', 'state.json');
    await expect(startMock({ stateFile: file })).rejects.toThrow(
      /cannot write state file .*missing\/state\.json: .*ENOENT/,
    );
  });
});
