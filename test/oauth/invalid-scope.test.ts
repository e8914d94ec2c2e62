import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { AuthError, ExitCode } from '../../src/errors.js';
import { parseCallback } from '../../src/oauth/callback.js';
import { processTokenResponse } from '../../src/oauth/token-response.js';

const EXIT_CODES = readFileSync(
  new URL('../../docs/reference/exit-codes.md', import.meta.url),
  'utf8',
);

/** One row of the exit-code table of the reference. */
function tableRow(code: number): string {
  const row = EXIT_CODES.split('\n').find((line) => line.startsWith(`| ${code} `));
  if (row === undefined)
    throw new Error(`no row for exit code ${code} in docs/reference/exit-codes.md`);
  return row;
}

describe('invalid_scope is exit 3, in the CLI and in the exit-code reference', () => {
  it('from the token endpoint', () => {
    const answer = {
      status: 400,
      headers: { 'content-type': 'application/json' },
      text: JSON.stringify({ error: 'invalid_scope', error_description: 'no wiki for bob' }),
    };
    let error: unknown;
    try {
      processTokenResponse(answer, 0);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(AuthError);
    expect((error as AuthError).exitCode).toBe(ExitCode.auth);
    expect((error as AuthError).code).toBe('invalid_scope');
  });

  it('from the authorization redirect', () => {
    const url = new URL('http://127.0.0.1:1/callback?error=invalid_scope&state=s');
    expect(() => parseCallback(url.searchParams, 's')).toThrow(AuthError);
  });

  it('the reference lists it under 3, not under 1', () => {
    expect(tableRow(3)).toContain('`invalid_scope`');
    expect(tableRow(1)).not.toContain('invalid_scope');
  });
});
