import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseQuirks } from '../../../src/mock/core/quirks.js';
import { QUIRK_MEMBERS } from '../../../src/schemas/quirks.js';
import { QUIRK_VALUES } from '../../helpers/quirk-table.js';
import { UsageError } from '../../../src/errors.js';

const schema = JSON.parse(
  readFileSync(new URL('../../../schema/quirks.schema.json', import.meta.url), 'utf8'),
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

/** Near misses of every kind: the values of other members, other types, other spellings. */
const ODD_VALUES = fc.constantFrom<unknown>(
  'seconds',
  'String',
  'false',
  'true',
  'html',
  '',
  0,
  1,
  null,
  [],
  ['string'],
  {},
);

/** Paths near the edges of tokenPath's rules: reserved prefixes, endpoints, spaces of every kind. */
const TOKEN_PATH = fc
  .array(
    fc.constantFrom(
      '/',
      'token',
      'oauth',
      '_mock',
      'webservice',
      'json',
      'authorize',
      'revoke',
      // Whole paths each rule names: the service's endpoints and the reserved prefixes.
      '/webservice/authorize',
      '/webservice/authorize/revoke',
      '/webservice/authorize/token',
      '/webservice/json/',
      '/_mock/',
      'refresh_token',
      '?',
      '#',
      ' ',
      '\t',
      '\u00a0',
      '\u2028',
      '\ufeff',
      'é',
      '%20',
    ),
    { maxLength: 6 },
  )
  .map((parts) => parts.join(''));

/** A document the schema accepts: some members, each with one of its values. */
const VALID_DOCUMENT = fc.record(
  {
    ...Object.fromEntries(
      Object.entries(QUIRK_VALUES).map(([member, values]) => [member, fc.constantFrom(...values)]),
    ),
    tokenPath: fc.constantFrom('/token', '/oauth/token', '/webservice/authorize', '/a/b_c-d'),
  },
  { requiredKeys: [] },
);

/** One change that may break it: a member's value, an odd path, an unknown member. */
const CHANGE = fc.oneof(
  fc.tuple(fc.constantFrom(...QUIRK_MEMBERS), ODD_VALUES),
  fc.tuple(fc.constant('tokenPath'), TOKEN_PATH),
  fc.tuple(fc.constantFrom('colour', '$schema', 'constructor', 'expires_in'), ODD_VALUES),
);

/** Quirks documents on both sides of the line: valid ones, each maybe changed once, or no object. */
const QUIRKS_DOCUMENT: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 9, arbitrary: VALID_DOCUMENT },
  {
    weight: 9,
    arbitrary: fc
      .tuple(VALID_DOCUMENT, CHANGE)
      .map(([document, [member, value]]) => ({ ...document, [member]: value })),
  },
  ODD_VALUES,
  fc.constant('expiresIn'),
);

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

  it('parser and the published JSON Schema, read by another tool, accept and refuse alike', () => {
    // The parser runs the validator generated ahead of time (its own options, formats, regular
    // expressions and error wrapping); ajv here reads the published file as any editor or CI
    // tool would. A fixed count from the fixed seed.
    const verdicts = { accepted: 0, refused: 0 };
    fc.assert(
      fc.property(QUIRKS_DOCUMENT, (document) => {
        const accepted = parses(document);
        expect(accepted, JSON.stringify(document)).toBe(validate(document));
        verdicts[accepted ? 'accepted' : 'refused'] += 1;
      }),
      {
        numRuns: 1000,
        // The edges every run walks first, whatever the generator draws.
        examples: [
          { tokenPath: '/oauth/token' },
          { tokenPath: '/webservice/authorize' },
          { tokenPath: 'oauth/token' },
          { tokenPath: '/oauth/token?x=1' },
          { tokenPath: '/webservice/authorize/revoke' },
          { tokenPath: '/_mock/tokens' },
          { tokenPath: '/webservice/json/crm' },
          { tokenPath: 7 },
          { refreshRotation: 'false' },
          { errorBody: 'html' },
          [],
          null,
          'expiresIn',
        ].map((document) => [document] as [unknown]),
      },
    );
    // Both sides of the line were walked, not one.
    expect(verdicts.accepted).toBeGreaterThan(100);
    expect(verdicts.refused).toBeGreaterThan(100);
  });

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
