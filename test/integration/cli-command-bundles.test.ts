// Issue 15.1: `dasvc rpc` and `dasvc mock` run from one-file bundles of their own
// (dist/bin/rpc.cjs and mock.cjs, built by scripts/build-bin.mjs), which check the command with the
// CLI's own parser and hand anything else to the full bundle. These run the real executable, as
// users do, and read Node's module log to see which bundle answered.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  freshConfigDir,
  mintTokens,
  ROOT,
  runCliProcess,
  startMockForCli,
} from '../helpers/cli.js';
import { spawnMock } from '../helpers/mock-process.js';

const mock = startMockForCli();
const RPC_BUNDLE = join(ROOT, 'dist/bin/rpc.cjs');
const MOCK_BUNDLE = join(ROOT, 'dist/bin/mock.cjs');

/** The source files esbuild bundled into `file` (it names each in a comment line). */
function sourcesOf(file: string): string[] {
  return [...readFileSync(file, 'utf8').matchAll(/^\/\/ (src\/\S+)$/gm)].map((m) => m[1]!);
}

/** A config dir whose default profile holds a pair minted at the mock, expiring in `seconds`. */
async function loggedIn(seconds: number): Promise<string> {
  const dir = freshConfigDir();
  const pair = await mintTokens(mock.url, 'alice', 'crm');
  const now = Date.now();
  const tokens = {
    accessToken: pair.access_token,
    refreshToken: pair.refresh_token,
    obtainedAt: now,
    expiresAt: now + seconds * 1000,
  };
  const profile = {
    baseUrl: mock.url,
    clientId: 'demo-client',
    clientSecret: 'demo-secret',
    tokens,
  };
  writeFileSync(join(dir, 'config.json'), JSON.stringify({ profiles: { default: profile } }), {
    mode: 0o600,
  });
  return dir;
}

/** The bundles a run of the executable loaded, as Node's module debug log names them. */
function bundlesLoaded(stderr: string): string[] {
  return [...new Set(stderr.match(/dist\/bin\/(?:rpc\.cjs|mock\.cjs|main\.js)/g) ?? [])].sort();
}
const TRACE = { NODE_DEBUG: 'module,esm' };

describe('the rpc bundle (issue 15.1)', () => {
  it('holds the rpc path and nothing of the other commands, the mock, check or demo', () => {
    const sources = sourcesOf(RPC_BUNDLE);
    expect(sources).toEqual(expect.arrayContaining(['src/cli/commands/rpc/run.ts']));
    expect(sources).toEqual(expect.arrayContaining(['src/client/session.ts']));
    const strangers = sources.filter((s) =>
      /^src\/(mock|check|demo)\/|^src\/cli\/commands\/(?!rpc\/)|^src\/client\/(login|browser)\.ts$/.test(
        s,
      ),
    );
    expect(strangers).toEqual([]);
  });

  it('answers dasvc rpc, and refreshes a due session on the way', async () => {
    const fresh = await loggedIn(3600);
    const ok = await runCliProcess(['rpc', 'crm', 'contacts.list'], fresh, { env: TRACE });
    expect(ok.code, ok.stderr).toBe(0);
    // Answered by the rpc bundle alone: the full bundle never loaded.
    expect(bundlesLoaded(ok.stderr)).toEqual(['dist/bin/rpc.cjs']);
    expect(JSON.parse(ok.stdout)).toEqual(
      expect.arrayContaining([expect.objectContaining({ id: 1 })]),
    );
    const due = await loggedIn(5);
    const before = JSON.parse(readFileSync(join(due, 'config.json'), 'utf8'));
    const refreshed = await runCliProcess(['rpc', 'crm', 'contacts.list'], due);
    expect(refreshed.code, refreshed.stderr).toBe(0);
    const after = JSON.parse(readFileSync(join(due, 'config.json'), 'utf8'));
    expect(after.profiles.default.tokens.refreshToken).not.toBe(
      before.profiles.default.tokens.refreshToken,
    );
  });

  it('hands every other command to the full bundle, even with "rpc" in its arguments', async () => {
    const dir = await loggedIn(3600);
    const status = await runCliProcess(['--profile', 'rpc', 'token', 'status'], dir, {
      env: TRACE,
    });
    expect(status.code).toBe(3);
    // The bin's cheap guess loads the rpc bundle, which hands the command on.
    expect(bundlesLoaded(status.stderr)).toEqual(['dist/bin/main.js', 'dist/bin/rpc.cjs']);
    expect(status.stderr).toMatch(/not logged in \(profile rpc\)/);
    expect(status.stderr).not.toMatch(/rpc bundle/);
    const help = await runCliProcess(['help', 'rpc'], dir);
    expect(help.code, help.stderr).toBe(0);
    expect(help.stdout).toMatch(/Usage: dasvc rpc/);
    const tokenRpc = await runCliProcess(['token', 'status', 'rpc'], dir, { env: TRACE });
    expect(tokenRpc.code).toBe(2);
    expect(bundlesLoaded(tokenRpc.stderr)).toEqual(['dist/bin/main.js', 'dist/bin/rpc.cjs']);
  });
});

describe('the mock bundle', () => {
  it('holds the mock and the CLI, and no other command, check or the demo', () => {
    const sources = sourcesOf(MOCK_BUNDLE);
    expect(sources).toEqual(
      expect.arrayContaining([
        'src/cli/commands/mock/run.ts',
        'src/mock/core/request-handler.ts',
        'src/mock/proxy/proxy.ts',
      ]),
    );
    const strangers = sources.filter((s) =>
      /^src\/(check|demo)\/|^src\/cli\/commands\/(?!mock\/)|^src\/client\/(login|browser)\.ts$/.test(
        s,
      ),
    );
    expect(strangers).toEqual([]);
  });

  it('serves dasvc mock alone, its later parts too: the handler, fixtures, the proxy (undici)', async () => {
    const upstream = await spawnMock(['--quiet'], { env: TRACE });
    let proxy: Awaited<ReturnType<typeof spawnMock>> | undefined;
    try {
      proxy = await spawnMock(['--quiet', '--proxy', upstream.url], { env: TRACE });
      const { url } = proxy;
      const call = (token: string) =>
        fetch(`${url}/webservice/json/crm`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}` },
          body: '{"jsonrpc":"2.0","method":"contacts.list","id":1}',
        });
      // A token minted at the proxy's own control API: the upstream does not know it.
      const minted = await mintTokens(url, 'alice', 'crm');
      expect((await call(minted.access_token)).status).toBe(401);
      const through = await call((await mintTokens(upstream.url, 'alice', 'crm')).access_token);
      expect(through.status).toBe(200);
      expect(await through.json()).toMatchObject({ jsonrpc: '2.0', id: 1 });
    } finally {
      await proxy?.stop();
      await upstream.stop();
    }
    for (const mock of [upstream, proxy!]) {
      expect(bundlesLoaded(mock.stderr())).toEqual(['dist/bin/mock.cjs']);
      expect(mock.stderr()).not.toMatch(/not in the mock bundle/);
    }
  });

  it('answers mock usage errors itself, and hands other commands on', async () => {
    const dir = freshConfigDir();
    const extra = await runCliProcess(['mock', 'rpc'], dir, { env: TRACE });
    expect(extra.code).toBe(2);
    expect(extra.stderr).toMatch(/^dasvc: too many arguments/m);
    expect(bundlesLoaded(extra.stderr)).toEqual(['dist/bin/mock.cjs']);
    const status = await runCliProcess(['--profile', 'mock', 'token', 'status'], dir, {
      env: TRACE,
    });
    expect(status.code).toBe(3);
    expect(status.stderr).toMatch(/not logged in \(profile mock\)/);
    expect(bundlesLoaded(status.stderr)).toEqual(['dist/bin/main.js', 'dist/bin/mock.cjs']);
  });
});
