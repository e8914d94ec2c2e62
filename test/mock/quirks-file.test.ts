import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { parseQuirks, QUIRK_MEMBERS } from '../../src/mock/core/quirks.js';
import { QUIRK_VALUES } from '../helpers/quirk-table.js';
import { UsageError } from '../../src/errors.js';

const schema = JSON.parse(
  readFileSync(new URL('../../schema/quirks.schema.json', import.meta.url), 'utf8'),
) as { properties: Record<string, { enum?: unknown[] }> };
// As another tool reads the published schema: strict, told the editors' message keywords.
const ajv = new Ajv2020({ strict: true, allErrors: true });
ajv.addKeyword('errorMessage').addKeyword('patternErrorMessage');
const validate = ajv.compile(schema);

/** Whether parseQuirks accepts a value (it throws a UsageError otherwise). */
function parses(value: unknown): boolean {
  try {
    parseQuirks(value);
    return true;
  } catch (error) {
    expect(error).toBeInstanceOf(UsageError);
    return false;
  }
}

const SAMPLES: unknown[] = [
  {},
  { expiresIn: 'number' },
  { expiresIn: 'seconds' },
  { refreshRotation: false },
  { refreshRotation: 'false' },
  { oldRefreshTokenAccepted: true },
  { refreshAfterExpiry: 1 },
  { revokeUnknownToken: 'error' },
  { revokeUnknownToken: 'ignore' },
  { errorBody: 'text' },
  { errorBody: 'html' },
  { rpcDiscover: false },
  { tokenPath: '/oauth/token' },
  { tokenPath: '/webservice/authorize' },
  { tokenPath: 'oauth/token' },
  { tokenPath: '/oauth/token?x=1' },
  { tokenPath: '/webservice/authorize/revoke' },
  { tokenPath: '/_mock/tokens' },
  { tokenPath: 7 },
  { colour: 'red' },
  [],
  null,
  'expiresIn',
  {
    expiresIn: 'absent',
    refreshRotation: false,
    oldRefreshTokenAccepted: true,
    refreshAfterExpiry: true,
    revokeUnknownToken: 'error',
    errorBody: 'text',
    rpcDiscover: false,
    tokenPath: '/token',
  },
];

describe('quirks file format (SPEC §7)', () => {
  it('the schema names exactly the members of the SPEC §7 table', () => {
    // The table's order, tokenPath last; the code lists the members as the schema orders them.
    const table = [...Object.keys(QUIRK_VALUES), 'tokenPath'];
    expect(Object.keys(schema.properties)).toEqual(table);
    expect(QUIRK_MEMBERS).toEqual(table);
  });

  it("each member's values are the schema's, the default first", () => {
    for (const [member, values] of Object.entries(QUIRK_VALUES)) {
      expect(schema.properties[member]?.enum, member).toEqual(values);
    }
  });

  it.each(SAMPLES.map((s) => [JSON.stringify(s), s]))(
    'parser and JSON Schema agree on %s',
    (_name, sample) => {
      expect(parses(sample)).toBe(validate(sample));
    },
  );

  it('names the unknown member or the bad value', () => {
    expect(() => parseQuirks({ colour: 'red' }, 'q.json')).toThrow(
      'q.json: unknown member "colour"',
    );
    expect(() => parseQuirks({ errorBody: 'html' }, 'q.json')).toThrow(
      'q.json: errorBody: unknown value "html" (allowed: "rfc6749", "text")',
    );
    expect(() => parseQuirks({ tokenPath: 'token' })).toThrow(
      'quirks: tokenPath: "token" must be a path starting with "/"',
    );
    expect(() => parseQuirks({ tokenPath: '/_mock/x' }, 'q.json')).toThrow(
      'q.json: tokenPath: "/_mock/x" lies under /_mock/ or /webservice/json/, which the mock keeps for itself',
    );
    expect(() => parseQuirks({ tokenPath: 7 }, 'q.json')).toThrow(
      'q.json: tokenPath: must be a string, not 7',
    );
    expect(() => parseQuirks([], 'q.json')).toThrow('q.json: must be a JSON object, not an array');
    // Regression: quoting a value nested too deep overflowed the stack (exit 1, a stack trace).
    const deep = JSON.parse(`${'['.repeat(20_000)}${']'.repeat(20_000)}`) as unknown;
    expect(() => parseQuirks({ expiresIn: deep }, 'q.json')).toThrow(
      /expiresIn: unknown value an array nested too deep to show/,
    );
    expect(() => parseQuirks({ expiresIn: 'x'.repeat(500) })).toThrow(/"x{59}… \(allowed/);
  });

  it('keeps what it was given, defaults included', () => {
    expect(parseQuirks({ expiresIn: 'string', rpcDiscover: true })).toEqual({
      expiresIn: 'string',
      rpcDiscover: true,
    });
  });
});
