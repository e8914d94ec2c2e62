import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startMockServer, type MockOptions } from '../../src/mock/index.js';
import { browserEnv, loginArgs, runCli, type CliResult } from './cli.js';

/** What a check run against its own mock left behind. */
export interface CheckedMock {
  result: CliResult;
  /** The quirks file the check wrote (`--save-quirks`), parsed; undefined when none was written. */
  saved: unknown;
  /** Tokens still alive at the mock once the check ended (should be none). */
  live: string[];
  dir: string;
}

/** Arguments naming the mock's installation and the demo client: the login's, for `check`. */
export function checkArgs(url: string, scope = 'crm wiki'): string[] {
  return ['check', ...loginArgs(url, scope).slice(1)];
}

interface StateSnapshot {
  grants: [
    number,
    { access?: string; accessExpiresAt?: number; refresh?: string; refreshExpiresAt?: number },
  ][];
}

/** Live tokens in a mock state file: a grant's access or refresh token not yet expired. */
function liveTokens(file: string, now: number): string[] {
  if (!existsSync(file)) return []; // nothing was ever issued
  const state = JSON.parse(readFileSync(file, 'utf8')) as StateSnapshot;
  const live: string[] = [];
  for (const [, grant] of state.grants) {
    if (grant.access && (grant.accessExpiresAt ?? 0) > now) live.push(grant.access);
    if (grant.refresh && (grant.refreshExpiresAt ?? 0) > now) live.push(grant.refresh);
  }
  return live;
}

/**
 * Runs `dasvc check <extra>` (the stand-in browser approving through `autoApprove`) against a
 * mock of its own served on 127.0.0.1 with `options`, and reads from the mock's state file which
 * tokens are still alive afterwards. `extra(url)` may add flags naming the mock's URL.
 */
export async function checkAgainstMock(
  options: MockOptions,
  extra: (url: string) => string[] = () => [],
  env: Record<string, string> = {},
): Promise<CheckedMock> {
  const dir = mkdtempSync(join(tmpdir(), 'dasvc-check-'));
  const stateFile = join(dir, 'state.json');
  const mock = await startMockServer({ port: 0, autoApprove: 'alice', stateFile, ...options });
  let result: CliResult;
  try {
    const quirksOut = join(dir, 'out.json');
    result = await runCli(
      [...checkArgs(mock.url), '--save-quirks', quirksOut, ...extra(mock.url)],
      dir,
      { env: { ...browserEnv(), ...env }, timeoutMs: 60_000 },
    );
  } finally {
    await mock.close();
  }
  let saved: unknown;
  try {
    saved = JSON.parse(readFileSync(join(dir, 'out.json'), 'utf8'));
  } catch {
    saved = undefined;
  }
  return { result, saved, live: liveTokens(stateFile, Date.now()), dir };
}

/** Removes what checkAgainstMock created. */
export function cleanUp(checked: CheckedMock): void {
  rmSync(checked.dir, { recursive: true, force: true });
}

/** Each report line of stdout as [status, id]. */
export function statuses(stdout: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of stdout.split('\n')) {
    const match = /^(ok|deviates|skipped)\s+(\S+)\s/.exec(line);
    if (match) out[match[2]!] = match[1]!;
  }
  return out;
}
