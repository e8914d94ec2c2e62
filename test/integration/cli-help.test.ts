// What `--help`, `dasvc help …` and usage errors show (SPEC §3), as a user sees them from the built CLI.
import { rmSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { examplesOf } from '../../src/cli/help-text.js';
import { freshConfigDir, mintTokens, runCli, startMockForCli } from '../helpers/cli.js';

const mock = startMockForCli();
const dir = freshConfigDir();
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('dasvc help', () => {
  it('help token revoke shows the help of token revoke (issue 9.5)', async () => {
    const result = await runCli(['help', 'token', 'revoke'], dir);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^Usage: dasvc token revoke /);
    expect(result.stdout).toContain('--hint <type>');
  });

  it('the examples of rpc run as they are against the mock (issue 9.12)', async () => {
    const { access_token } = await mintTokens(mock.url, 'alice', 'crm');
    const env = { DASVC_TOKEN: access_token, DASVC_BASE_URL: mock.url };
    const examples = examplesOf('rpc').filter((e) => e.startsWith('dasvc rpc '));
    expect(examples.length).toBeGreaterThanOrEqual(2);
    for (const example of examples) {
      const result = await runCli(example.split(' ').slice(1), dir, { env });
      expect(result.code, `${example}: ${result.stderr}`).toBe(0);
      expect(JSON.parse(result.stdout)).toBeTruthy();
    }
  });

  it('usage errors in one style: dasvc: <what>, then hint: <what to do> (issue 9.12)', async () => {
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
    }
  });
});
