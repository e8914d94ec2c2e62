import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startMockServer } from '../../src/mock/index.js';
import {
  browserEnv,
  clearJournal,
  control,
  expectNoLeaksAfterAll,
  freshConfigDir,
  journalEntries,
  loginArgs,
  runCli,
  runCliProcess,
  startMockForCli,
} from '../helpers/cli.js';

const mock = startMockForCli();
expectNoLeaksAfterAll();

const refreshes = async () =>
  (await journalEntries(mock.url)).filter((e) => e.path === '/webservice/authorize/refresh_token');

/** Makes the stored access token look 30 s from expiry to the CLI (the mock still honours it). */
function ageToken(dir: string): void {
  const file = join(dir, 'config.json');
  const data = JSON.parse(readFileSync(file, 'utf8'));
  data.profiles.default.tokens.expiresAt = Date.now() + 30_000;
  writeFileSync(file, JSON.stringify(data), { mode: 0o600 });
}

describe('refresh that never loses a session', () => {
  // 8 are processes (the lock holds across processes), 56 run in this process beside them (it
  // holds between runs of one process too): 64 Node start-ups would cost ~6 s of CPU.
  it('64 parallel rpc (8 processes) across a due refresh all succeed, with one refresh between them', async () => {
    const dir = freshConfigDir();
    expect((await runCli(loginArgs(mock.url), dir, { env: browserEnv() })).code).toBe(0);
    ageToken(dir);
    await clearJournal(mock.url);
    const runs = await Promise.all(
      Array.from({ length: 64 }, (_, i) =>
        (i % 8 === 0 ? runCliProcess : runCli)(['rpc', 'crm', 'contacts.list'], dir, {
          timeoutMs: 55_000,
        }),
      ),
    );
    const failed = runs.filter((r) => r.code !== 0);
    expect(failed.map((r) => r.stderr)).toEqual([]);
    for (const run of runs) expect(JSON.parse(run.stdout)).toHaveLength(2);
    const done = await refreshes();
    expect(done).toHaveLength(1);
    expect(done[0]!.status).toBe(200);
    const tokens = JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')).profiles.default
      .tokens;
    expect(tokens.expiresAt).toBeGreaterThan(Date.now() + 3_000_000);
    expect(() => readFileSync(join(dir, 'config.json.lock'))).toThrow();
  }, 60_000);

  it('token print refreshes first when due; a stale lock of a dead process does not block', async () => {
    const dir = freshConfigDir();
    expect((await runCli(loginArgs(mock.url), dir, { env: browserEnv() })).code).toBe(0);
    ageToken(dir);
    writeFileSync(
      join(dir, 'config.json.lock'),
      JSON.stringify({ pid: 2 ** 22 + 12345, at: Date.now(), nonce: 'dead' }),
    );
    await clearJournal(mock.url);
    const printed = await runCli(['token', 'print'], dir, { allowSecrets: true });
    expect(printed.code, printed.stderr).toBe(0);
    expect(await refreshes()).toHaveLength(1);
    expect(printed.stdout.trim()).toBe(
      JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')).profiles.default.tokens
        .accessToken,
    );
  });

  it('an expired session that cannot be refreshed is exit 3 with a login hint', async () => {
    const short = await startMockServer({
      port: 0,
      autoApprove: 'alice',
      accessTtl: '30s',
      log: () => undefined,
    });
    try {
      const dir = freshConfigDir();
      expect((await runCli(loginArgs(short.url), dir, { env: browserEnv() })).code).toBe(0);
      await control(short.url, 'clock', { advance: '2h' });
      const file = join(dir, 'config.json');
      const data = JSON.parse(readFileSync(file, 'utf8'));
      data.profiles.default.tokens.expiresAt = Date.now() - 1000;
      writeFileSync(file, JSON.stringify(data), { mode: 0o600 });
      const result = await runCli(['rpc', 'crm', 'contacts.list'], dir);
      expect(result.code).toBe(3);
      expect(result.stderr).toContain('hint: dasvc login');
      const status = await runCli(['token', 'status'], dir);
      expect(status.code).toBe(3);
      expect(status.stdout).toMatch(/expired/);
    } finally {
      await short.close();
    }
  });

  it('refreshes and retries once when the API refuses a token whose expiry was unknown', async () => {
    const dir = freshConfigDir();
    expect((await runCli(loginArgs(mock.url), dir, { env: browserEnv() })).code).toBe(0);
    const file = join(dir, 'config.json');
    const data = JSON.parse(readFileSync(file, 'utf8'));
    // Revoke the access token behind the CLI's back and forget its expiry.
    const revoke = new URL(`${mock.url}/webservice/authorize/revoke`);
    for (const [k, v] of Object.entries({
      client_id: 'demo-client',
      client_secret: 'demo-secret',
      token_type_hint: 'access_token',
      token: data.profiles.default.tokens.accessToken,
    }))
      revoke.searchParams.set(k, v);
    expect((await fetch(revoke, { method: 'POST' })).status).toBe(200);
    data.profiles.default.tokens.expiresAt = null;
    writeFileSync(file, JSON.stringify(data), { mode: 0o600 });
    const result = await runCli(['rpc', 'crm', 'contacts.list'], dir);
    expect(result.code, result.stderr).toBe(0);
  });

  it('16 parallel rpc refused with the same revoked token refresh once between them (SPEC §3)', async () => {
    const dir = freshConfigDir();
    expect((await runCli(loginArgs(mock.url), dir, { env: browserEnv() })).code).toBe(0);
    const access = JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')).profiles.default
      .tokens.accessToken as string;
    const revoke = await fetch(`${mock.url}/webservice/authorize/revoke`, {
      method: 'POST',
      body: new URLSearchParams({
        client_id: 'demo-client',
        client_secret: 'demo-secret',
        token_type_hint: 'access_token',
        token: access,
      }),
    });
    expect(revoke.status).toBe(200);
    await clearJournal(mock.url);
    const runs = await Promise.all(
      Array.from({ length: 16 }, (_, i) =>
        (i % 8 === 0 ? runCliProcess : runCli)(['rpc', 'crm', 'contacts.list'], dir, {
          timeoutMs: 30_000,
        }),
      ),
    );
    expect(runs.filter((r) => r.code !== 0).map((r) => r.stderr)).toEqual([]);
    expect(await refreshes()).toHaveLength(1);
  }, 40_000);
});
