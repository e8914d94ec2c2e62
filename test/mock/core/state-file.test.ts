import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { UsageError } from '../../../src/errors.js';
import { loadStateFile } from '../../../src/mock/core/state-file.js';
import { RUNS, text } from '../../helpers/parser-properties.js';

describe('mock state files (SPEC §5 --state-file)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'dasvc-prop-state-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'state.json');
  const snapshot =
    '{"version":1,"offsetSeconds":0,"grantSeq":0,"codes":[],"grants":[],"rotated":[]}';
  const grant = { clientId: 'demo-client', user: 'alice', scopes: ['crm'] };
  const line = fc.oneof(
    text,
    fc.anything().map((v) => JSON.stringify(v) ?? ''),
    fc
      .record(
        {
          kind: fc.constantFrom('code', 'grant', 'grant-ended', 'rotated', 'clock', 'reset', 'x'),
          id: fc.oneof(fc.integer(), fc.double()),
          record: fc.oneof(fc.constant(grant), fc.anything()),
          offsetSeconds: fc.oneof(fc.integer(), fc.double()),
        },
        { requiredKeys: ['kind'] },
      )
      .map((v) => JSON.stringify(v)),
  );

  it('any journal after a snapshot: a state, or a UsageError naming the file', () => {
    fc.assert(
      fc.property(fc.array(line, { maxLength: 5 }), fc.boolean(), (lines, cut) => {
        writeFileSync(file, `${[snapshot, ...lines].join('\n')}${cut ? '' : '\n'}`);
        try {
          const state = loadStateFile(file);
          expect(state?.version).toBe(1);
        } catch (error) {
          if (!(error instanceof UsageError)) throw error;
          expect(error.message).toContain(file);
        }
      }),
      { ...RUNS, numRuns: 150 },
    );
  });
});
