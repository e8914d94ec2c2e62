// What `--help`, `dasvc help …` and usage errors show (SPEC §3), as a user sees them from the built CLI.
import { rmSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { examplesOf } from '../../src/cli/help-text.js';
import { parseParams } from '../../src/rpc/params.js';
import {
  browserEnv,
  freshConfigDir,
  loginArgs,
  mintTokens,
  runCli,
  startMockForCli,
} from '../helpers/cli.js';
import { rpc } from '../helpers/mock-client.js';

const mock = startMockForCli();
/** The examples read no file and no stdin. */
const NO_FILES = {
  readFile: (path: string): string => {
    throw new Error(`an example reads ${path}`);
  },
  readStdin: (): string => {
    throw new Error('an example reads stdin');
  },
};
const dir = freshConfigDir();
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('a command name where an argument goes is that argument', () => {
  it('as a profile, an extra argument, or the command help asks about', async () => {
    for (const name of ['rpc', 'mock']) {
      const status = await runCli(['--profile', name, 'token', 'status'], dir);
      expect(status.code).toBe(3);
      expect(status.stderr).toContain(`not logged in (profile ${name})`);
    }
    const extraMock = await runCli(['mock', 'rpc'], dir);
    expect(extraMock.code).toBe(2);
    expect(extraMock.stderr).toMatch(/^dasvc: too many arguments/m);
    const extraStatus = await runCli(['token', 'status', 'rpc'], dir);
    expect(extraStatus.code).toBe(2);
    expect(extraStatus.stderr).toMatch(/^dasvc: too many arguments/m);
    const help = await runCli(['help', 'rpc'], dir);
    expect(help.code, help.stderr).toBe(0);
    expect(help.stdout).toMatch(/Usage: dasvc rpc/);
  });
});

describe('dasvc help', () => {
  it('help environment names every variable and the config folder; help exit-codes every code', async () => {
    const { SETTINGS } = await import('../../src/client/settings.js');
    const environment = await runCli(['help', 'environment'], dir);
    expect(environment.code).toBe(0);
    for (const { env } of Object.values(SETTINGS)) expect(environment.stdout).toContain(env);
    for (const name of ['DASVC_CONFIG_DIR', 'DASVC_HTTP_TIMEOUT', 'DASVC_BROWSER', 'BROWSER'])
      expect(environment.stdout).toContain(name);
    for (const name of ['NO_COLOR', 'HTTPS_PROXY', 'NO_PROXY', '.config/dasvc-nodejs'])
      expect(environment.stdout).toContain(name);
    const codes = await runCli(['--profile', 'x', 'help', 'exit-codes'], dir);
    expect(codes.code).toBe(0);
    for (const code of ['0', '1', '2', '3', '4', '130', '143'])
      expect(codes.stdout).toMatch(new RegExp(`^ +${code} +\\S`, 'm'));
  });

  it('the top-level help groups the commands and ends with where to learn more', async () => {
    const result = await runCli(['--help'], dir);
    const headings = [...result.stdout.matchAll(/^(\S[^:\n]*):$/gm)].map((m) => m[1]);
    expect(headings, result.stdout).toEqual([
      'Options',
      'Everyday',
      'Mock, check and types',
      'Setup',
      'Examples',
      'Learn more',
    ]);
    expect(result.stdout).toMatch(/Everyday:\n {2}login .*\n {2}logout .*\n {2}token .*\n {2}rpc /);
    expect(result.stdout).toContain('dasvc help environment');
    expect(result.stdout).not.toMatch(/SERVICE\.md|SPEC/);
  });

  it('completion --help says where the line goes for bash, zsh and fish', async () => {
    const result = await runCli(['completion', '--help'], dir);
    expect(result.stdout).toContain('~/.bashrc');
    expect(result.stdout).toContain('~/.zshrc');
    expect(result.stdout).toContain('~/.config/fish/completions/dasvc.fish');
  });

  it('help token revoke shows the help of token revoke', async () => {
    const result = await runCli(['help', 'token', 'revoke'], dir);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^Usage: dasvc token revoke /);
    expect(result.stdout).toContain('--hint <type>');
  });

  it('the examples of rpc run as they are against the mock', async () => {
    const { access_token } = await mintTokens(mock.url, 'alice', 'crm');
    const env = { DASVC_TOKEN: access_token, DASVC_BASE_URL: mock.url };
    const examples = examplesOf('rpc').filter((e) => e.startsWith('dasvc rpc '));
    expect(examples.length).toBeGreaterThanOrEqual(2);
    for (const example of examples) {
      const [, , scope, method, ...items] = example.split(' ');
      const result = await runCli(example.split(' ').slice(1), dir, { env });
      expect(result.code, `${example}: ${result.stderr}`).toBe(0);
      // What it prints is the result the service gives that call, asked directly.
      const params = items.length === 0 ? undefined : parseParams(items, NO_FILES);
      const answer = (await (
        await rpc(mock.url, scope!, access_token, { jsonrpc: '2.0', id: 1, method, params })
      ).json()) as { result?: unknown };
      expect(answer.result, example).toBeDefined();
      expect(JSON.parse(result.stdout), example).toEqual(answer.result);
    }
  });

  it('the examples of token, profile and logout run as they are, once logged in (SPEC §3)', async () => {
    /** One example as a shell reads it: words, quotes, a leading VAR="$(dasvc …)" assignment. */
    const run = async (example: string, at: string, extra: Record<string, string> = {}) => {
      const words = (example.match(/(?:[^\s"]+|"[^"]*")+/g) ?? []).map((w) => w.replace(/"/g, ''));
      const env: Record<string, string> = { ...extra };
      const assignment = /^([A-Z_]+)=\$\((dasvc .*)\)$/.exec(words[0]!);
      if (assignment) {
        words.shift();
        const inner = await runCli(assignment[2]!.split(' ').slice(1), at, { allowSecrets: true });
        env[assignment[1]!] = inner.stdout.trim();
      }
      expect(words[0], example).toBe('dasvc');
      const args = words.slice(1).map((w) => w.replace('http://127.0.0.1:8080', mock.url));
      return runCli(args, at, { env });
    };
    const paths = ['token', 'token status', 'token print', 'token refresh', 'token revoke'];
    paths.push(
      'logout',
      'profile',
      'profile list',
      'profile show',
      'profile use',
      'profile remove',
    );
    // Each example on its own, from the same start: logged in as `default` and as `work`.
    for (const example of paths.flatMap((path) => examplesOf(path))) {
      if (/[|<>]|^curl/.test(example)) continue;
      const at = freshConfigDir();
      try {
        expect((await runCli(loginArgs(mock.url), at, { env: browserEnv() })).code).toBe(0);
        // login's second example makes the profile `work` the others name.
        const work = examplesOf('login')[1]!;
        expect(work).toContain('--profile work');
        expect((await run(work.replace(' --no-browser', ''), at, browserEnv())).code).toBe(0);
        const result = await run(example, at);
        expect(result.code, `${example}: ${result.stderr}`).toBe(0);
      } finally {
        rmSync(at, { recursive: true, force: true });
      }
    }
  });

  it('usage errors in one style: dasvc: <what>, then hint: <what to do>', async () => {
    const cases: [string[], string][] = [
      [['rpc', '--bogus'], "dasvc: unknown option '--bogus'\nhint: dasvc rpc --help\n"],
      [['token', 'frob'], "dasvc: unknown command 'frob'\nhint: dasvc token --help\n"],
      [['rpc'], "dasvc: missing required argument 'scope'\nhint: dasvc rpc --help\n"],
      [['frobnicate'], "dasvc: unknown command 'frobnicate'\nhint: dasvc --help\n"],
      // Regression: `help <unknown>` printed the whole root help and not the unknown name.
      [['help', 'frobnicate'], "dasvc: unknown command 'frobnicate'\nhint: dasvc --help\n"],
      [['token', 'help', 'frob'], "dasvc: unknown command 'frob'\nhint: dasvc token --help\n"],
    ];
    for (const [args, stderr] of cases) {
      const result = await runCli(args, dir);
      expect({ args, code: result.code, stderr: result.stderr, stdout: result.stdout }).toEqual({
        args,
        code: 2,
        stderr,
        stdout: '',
      });
      // Under --json the document on stdout carries the same message and hint.
      const json = await runCli(['--json', ...args], dir);
      const [, message, hint] = /^dasvc: (.*)\nhint: (.*)\n$/.exec(stderr)!;
      expect(JSON.parse(json.stdout)).toMatchObject({ error: { exitCode: 2, message, hint } });
    }
  });

  it('a command group without its command shows its help; under --json, the same hint', async () => {
    for (const [args, hint] of [
      [['token'], 'dasvc token --help'],
      [[], 'dasvc --help'],
    ] as const) {
      const shown = await runCli([...args], dir);
      expect(shown.code).toBe(2);
      expect(shown.stderr).toMatch(/^Usage: dasvc/);
      const json = await runCli(['--json', ...args], dir);
      expect(JSON.parse(json.stdout)).toEqual({
        error: { code: 'missing_command', exitCode: 2, message: 'a command is missing', hint },
      });
    }
  });
});
