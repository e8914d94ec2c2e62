// jsonSyntaxProblem: the parser's problem without its quote of the text, which may hold a token.
import { describe, expect, it } from 'vitest';
import { jsonSyntaxProblem } from '../../src/util/json-error.js';

const SECRET = 'tok_SECRETSECRETSECRETSECRETSECRET';

/** What jsonSyntaxProblem makes of JSON.parse's error for `text`. */
function problemOf(text: string): string {
  try {
    JSON.parse(text);
  } catch (error) {
    return jsonSyntaxProblem(error);
  }
  throw new Error('the text parsed');
}

describe('jsonSyntaxProblem', () => {
  it.each([
    // V8 quotes a short text whole, a long one cut at either end (`..."…"...`).
    [`{"token":"${SECRET}",\n "b": ]}`, "Unexpected token ']'"],
    [`{"token":"${SECRET}","b": ]${' '.repeat(40)}`, "Unexpected token ']'"],
    [`{"token":"${SECRET}", "b":\n x }`, "Unexpected token 'x'"],
    [`${SECRET}{`, "Unexpected token 'o'"],
    [
      `{"token": "${SECRET}" oops}`,
      "Expected ',' or '}' after property value in JSON at position 47",
    ],
    ['', 'Unexpected end of JSON input'],
  ])('%j → %s, one line and no quote of the text', (text, problem) => {
    const said = problemOf(text);
    // Node 22 and later add where the problem is as a line and column.
    const where = said.startsWith(problem) ? said.slice(problem.length) : said;
    expect(where).toMatch(/^(?: \(line \d+ column \d+\))?$/);
    expect(said).not.toContain('SECRET');
    expect(said).not.toContain('\n');
  });
});
