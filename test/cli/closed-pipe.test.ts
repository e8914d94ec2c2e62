// SPEC §3: output into a closed pipe (`dasvc … | head -1`) ends the command quietly with exit 0.
// Each run goes through a real shell pipe into `head`, which exits before (head -0) or while
// (head -1 on the demo's narration) dasvc writes.
import { spawn } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { describe, expect, it } from 'vitest';
import {
  BIN,
  browserEnv,
  freshConfigDir,
  loginArgs,
  mintTokens,
  runCli,
  startMockForCli,
} from '../helpers/cli.js';

const mock = startMockForCli();
function configDir(): string {
  const dir = freshConfigDir();
  return dir;
}

/** `dasvc <args> | head -<lines>` in sh; dasvc's own exit code comes back as the last stderr line. */
function intoClosedPipe(
  args: string[],
  lines: number,
  env: Record<string, string>,
): Promise<{ code: number; stderr: string }> {
  const script = `{ "$0" "$@"; echo "rc=$?" >&2; } | head -${lines} >/dev/null`;
  const child = spawn('sh', ['-c', script, process.execPath, BIN, ...args], {
    env: { PATH: process.env.PATH ?? '', HOME: tmpdir(), CI: '1', ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', () => {
      const match = /rc=(\d+)\n$/.exec(stderr);
      resolve({ code: match ? Number(match[1]) : -1, stderr: stderr.replace(/rc=\d+\n$/, '') });
    });
  });
}

describe('output into a closed pipe', () => {
  it('ends every command quietly with exit 0', async () => {
    const dir = configDir();
    const login = await runCli(loginArgs(mock.url), dir, { env: browserEnv() });
    expect(login.code, login.stderr).toBe(0);
    const { access_token } = await mintTokens(mock.url, 'alice', 'crm');
    const env = { DASVC_CONFIG_DIR: dir };
    const runs: [string[], number, Record<string, string>][] = [
      [['token', 'status'], 1, env],
      [['token', 'status'], 0, env],
      [['profile', 'list'], 0, env],
      [['profile', 'show'], 0, env],
      [['rpc', 'crm', 'contacts.list'], 0, env],
      [['rpc', 'crm', 'contacts.list', '--base-url', mock.url], 0, { DASVC_TOKEN: access_token }],
      [['completion', 'bash'], 0, env],
      [['--help'], 0, env],
      [['--version'], 0, env],
      [['demo'], 1, { DASVC_CONFIG_DIR: configDir() }],
    ];
    const results = [];
    for (const [args, lines, runEnv] of runs)
      results.push({ args, ...(await intoClosedPipe(args, lines, runEnv)) });
    expect(results).toEqual(runs.map(([args]) => ({ args, code: 0, stderr: '' })));
  });
});

describe('a closed pipe changes only the output', () => {
  // Regression: `token revoke` printed each answer before the profile forgot what was revoked, so
  // a reader gone early (`| head -0`) left revoked tokens in the profile.
  it('token revoke --all | head -0: revoked at the service and forgotten in the profile', async () => {
    const dir = configDir();
    const login = await runCli(loginArgs(mock.url), dir, { env: browserEnv() });
    expect(login.code, login.stderr).toBe(0);
    const revoked = await intoClosedPipe(['token', 'revoke', '--all'], 0, {
      DASVC_CONFIG_DIR: dir,
    });
    expect(revoked.code, revoked.stderr).toBe(0);
    const status = await runCli(['token', 'status'], dir);
    expect(status.code, status.stdout).toBe(3);
  });
});

describe('a closed pipe ends the run the same way after a failure', () => {
  // The contract's rule is unconditional: a --json error document into a closed pipe ends quietly
  // with exit 0, as any output does (without --json the error goes to stderr, and keeps its code).
  it('--json errors into a closed pipe: exit 0', async () => {
    const env = { DASVC_CONFIG_DIR: configDir() };
    const status = await intoClosedPipe(['--json', 'token', 'status'], 0, env);
    expect(status.code, status.stderr).toBe(0);
    const plain = await intoClosedPipe(['token', 'status'], 0, env);
    expect(plain.code, plain.stderr).toBe(3);
  });
});

/** `dasvc <args>` with stdout or stderr on /dev/full (every write fails with ENOSPC). */
function intoFullDevice(
  args: string[],
  which: 'stdout' | 'stderr',
  env: Record<string, string>,
): Promise<{ code: number | null; stderr: string }> {
  const full = openSync('/dev/full', 'w');
  const child = spawn(process.execPath, [BIN, ...args], {
    env: { PATH: process.env.PATH ?? '', HOME: tmpdir(), CI: '1', ...env },
    stdio: ['ignore', which === 'stdout' ? full : 'ignore', which === 'stderr' ? full : 'pipe'],
  });
  closeSync(full);
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stderr })));
}

describe.runIf(process.platform === 'linux')('output to a device that fails (/dev/full)', () => {
  // Regression: a write error other than EPIPE was rethrown: a stack trace, exit 1.
  it('stdout: one line on stderr, exit 1, no stack trace', async () => {
    for (const args of [['--version'], ['--help'], ['completion', 'bash']]) {
      const result = await intoFullDevice(args, 'stdout', { DASVC_CONFIG_DIR: configDir() });
      expect(result, args.join(' ')).toEqual({
        code: 1,
        stderr: 'dasvc: cannot write the result to stdout (ENOSPC)\n',
      });
    }
  });

  // Regression: a failing stderr ended the command at its first message, with exit 1.
  it('stderr: ignored, the command ends with its own exit code', async () => {
    const bad = await intoFullDevice(['rpc', 'crm', 'x', '--bogus'], 'stderr', {
      DASVC_CONFIG_DIR: configDir(),
    });
    expect(bad.code).toBe(2);
    const dir = configDir();
    const login = await intoFullDevice(loginArgs(mock.url), 'stderr', {
      DASVC_CONFIG_DIR: dir,
      ...browserEnv(),
    });
    expect(login.code).toBe(0);
    const status = await runCli(['token', 'status'], dir);
    expect(status.code, status.stderr).toBe(0);
  });
});

describe('colour follows the stream it colours', () => {
  // stdout piped, stderr a terminal (script(1) gives it a pseudo-terminal): the messages on stderr
  // are coloured, as docs/reference/cli-behaviour.md says, although stdout is no terminal.
  it('messages on a terminal stderr are coloured while stdout is piped', async () => {
    const dir = configDir();
    const login = await runCli(loginArgs(mock.url), dir, { env: browserEnv() });
    expect(login.code, login.stderr).toBe(0);
    const command = `"${process.execPath}" "${BIN}" profile use default | cat >/dev/null`;
    const child = spawn('script', ['-qec', command, '/dev/null'], {
      env: { PATH: process.env.PATH ?? '', HOME: tmpdir(), TERM: 'xterm', DASVC_CONFIG_DIR: dir },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let seen = '';
    child.stdout.on('data', (chunk: Buffer) => (seen += chunk.toString()));
    const code = await new Promise((resolve) => child.on('close', resolve));
    expect(code).toBe(0);
    expect(seen).toContain('\u001b[32m');
    expect(seen).toContain('Active profile: default');
  });
});
