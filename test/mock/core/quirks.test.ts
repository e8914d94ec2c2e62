import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../../src/errors.js';
import { parseQuirks } from '../../../src/mock/core/quirks.js';
import { QUIRK_VALUES } from '../../helpers/quirk-table.js';
import { answerOrThrown, RUNS } from '../../helpers/parser-properties.js';

describe('quirks files (SPEC §7)', () => {
  it('any JSON: quirks or a UsageError naming the problem', () => {
    const member = fc.constantFrom(...Object.keys(QUIRK_VALUES), 'tokenPath', 'other');
    const doc = fc.oneof(
      fc.anything(),
      fc.dictionary(
        member,
        fc.oneof(
          fc.anything(),
          fc.constantFrom(...Object.values(QUIRK_VALUES).flat()),
          fc.string().map((s) => `/${s}`),
        ),
      ),
    );
    fc.assert(
      fc.property(doc, (value) => {
        const quirks = answerOrThrown(
          () => parseQuirks(value, 'quirks file q.json'),
          UsageError,
          (error) => expect(error.message).toMatch(/^quirks file q\.json: /),
        );
        if (quirks === undefined) return;
        // Exactly the members given, each a known one with one of its allowed values.
        expect(quirks).toEqual(value);
        for (const [name, member] of Object.entries(quirks)) {
          if (name === 'tokenPath') expect(typeof member).toBe('string');
          else expect(QUIRK_VALUES[name as keyof typeof QUIRK_VALUES]).toContain(member);
        }
      }),
      RUNS,
    );
  });

  it('every valid quirks object comes back as it was', () => {
    const valid = fc.record(
      Object.fromEntries(
        Object.entries(QUIRK_VALUES).map(([name, values]) => [
          name,
          fc.constantFrom(...(values as readonly unknown[])),
        ]),
      ),
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(valid, (quirks) => {
        expect(parseQuirks(JSON.parse(JSON.stringify(quirks)))).toEqual(quirks);
      }),
      RUNS,
    );
  });
});
