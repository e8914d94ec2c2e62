// The one shape of `--json` errors (SPEC §4), alone or as the `error` member of a command's answer.
import { describe, expect, it } from 'vitest';
import { jsonErrorDocument } from '../../src/cli/json-error.js';

const FIELDS = { code: 'Deviates', exitCode: 1, message: '1 rule deviates', hint: undefined };

describe('jsonErrorDocument', () => {
  it('writes the error alone on one line, its code in snake_case, a terminal or not', () => {
    const expected = '{"error":{"code":"deviates","exitCode":1,"message":"1 rule deviates"}}';
    expect(jsonErrorDocument(FIELDS)).toBe(expected);
    expect(jsonErrorDocument(FIELDS, undefined, 2)).toBe(expected);
  });

  it("adds the error to the command's answer as its last member, laid out as the answer is", () => {
    const answer = { installation: 'http://127.0.0.1:8080', rules: [] };
    const error = { code: 'deviates', exitCode: 1, message: '1 rule deviates' };
    expect(jsonErrorDocument(FIELDS, answer)).toBe(JSON.stringify({ ...answer, error }));
    expect(jsonErrorDocument(FIELDS, answer, 2)).toBe(
      JSON.stringify({ ...answer, error }, null, 2),
    );
    // An answer's own `error` member gives way to the error's.
    const clash = JSON.parse(jsonErrorDocument(FIELDS, { error: 'theirs' })) as unknown;
    expect(clash).toEqual({ error });
  });

  it('is written even when a JSON-RPC error holds data nested too deep to print', () => {
    let data: unknown = 0;
    for (let i = 0; i < 20_000; i += 1) data = [data];
    const rpc = { code: -32000, message: 'deep', data };
    const text = jsonErrorDocument({ ...FIELDS, rpc }, { file: 'x' });
    const parsed = JSON.parse(text) as { file: string; error: { rpc: { data: string } } };
    expect(parsed.file).toBe('x');
    expect(parsed.error.rpc.data).toMatch(/^\(cannot be shown: /);
  });
});
