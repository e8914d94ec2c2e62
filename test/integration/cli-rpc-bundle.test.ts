// Issue 15.1: `dasvc rpc` runs from a one-file bundle of its own (dist/bin/rpc.cjs, built by
// scripts/build-bin.mjs), which checks the command with the CLI's own parser and hands anything
// else to the full bundle. These run the real executable, as users do.
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

const mock = startMockForCli();
const RPC_BUNDLE = join(ROOT, 'dist/bin/rpc.cjs');

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
  return [...new Set(stderr.match(/dist\/bin\/(?:rpc\.cjs|main\.js)/g) ?? [])].sort();
}
const TRACE = { NODE_DEBUG: 'module,esm' };

describe('the rpc bundle (issue 15.1)', () => {
  it('holds the rpc path and nothing of the other commands, the mock, check or demo', () => {
    const text = readFileSync(RPC_BUNDLE, 'utf8');
    // esbuild names each bundled source file in a comment line.
    const sources = [...text.matchAll(/^\/\/ (src\/\S+)$/gm)].map((m) => m[1]!);
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
    const mockHelp = await runCliProcess(['mock', 'rpc'], dir, { env: TRACE });
    expect(mockHelp.code).toBe(2);
    expect(mockHelp.stderr).toMatch(/^dasvc: too many arguments/m);
    expect(bundlesLoaded(mockHelp.stderr)).toEqual(['dist/bin/main.js', 'dist/bin/rpc.cjs']);
  });
});
