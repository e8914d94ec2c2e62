// What `--help` and `dasvc help …` show (SPEC §3), as a user sees it from the built CLI.
import { rmSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { freshConfigDir, runCli } from '../helpers/cli.js';

const dir = freshConfigDir();
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('dasvc help', () => {
  it('help token revoke shows the help of token revoke (issue 9.5)', async () => {
    const result = await runCli(['help', 'token', 'revoke'], dir);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^Usage: dasvc token revoke /);
    expect(result.stdout).toContain('--hint <type>');
  });
});
