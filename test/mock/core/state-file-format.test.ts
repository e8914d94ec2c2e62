// The state file's lines are checked against its schema (src/schemas/state-file.schema.json): a
// corrupt one names the file, the line, the JSON pointer of what is wrong and the problem.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadStateFile } from '../../../src/mock/core/state-file.js';
import { MAX_SECONDS } from '../../../src/mock/core/types.js';
import { scratchDir } from '../../helpers/scratch.js';
import { code, grant, snapshot } from '../../helpers/state-snapshots.js';

/** loadStateFile's message for a file holding `text`, with the file's path as F. */
function problemOf(text: string): string {
  const file = join(scratchDir('dasvc-state-'), 'state.json');
  writeFileSync(file, text);
  try {
    loadStateFile(file);
    return 'loaded';
  } catch (error) {
    return (error as Error).message.replace(file, 'F');
  } finally {
    expect(readFileSync(file, 'utf8')).toBe(text);
  }
}

describe('the state file format', () => {
  it.each([
    [
      { grants: [[1, { ...grant, access: 5, accessExpiresAt: 4e12 }]] },
      '/grants/0/1/access: must be a string, not 5',
    ],
    [
      { grants: [[1, { ...grant, access: 'a' }]] },
      '/grants/0/1: needs "accessExpiresAt" beside "access"',
    ],
    [{ grants: [[1.5, grant]] }, '/grants/0/0: must be an integer, not 1.5'],
    [
      {
        grants: [
          [1, grant],
          [1, grant],
        ],
      },
      '/grants/1/0: 1 is listed twice',
    ],
    [{ grants: [[1, { ...grant, admin: true }]] }, '/grants/0/1: unknown member "admin"'],
    [{ grants: [[1, grant, 2]] }, '/grants/0: must hold at most 2 items'],
    [
      { codes: [['c', { ...code, challengeMethod: 'S512' }]] },
      '/codes/0/1/challengeMethod: unknown value "S512" (allowed: "S256", "plain")',
    ],
    [{ rotated: [['t', { grantId: 1 }]] }, '/rotated/0/1: needs "expiresAt"'],
    [{ offsetSeconds: -5 }, '/offsetSeconds: -5 must be a number of seconds from 0 to 100 years'],
    [{ extra: [] }, 'unknown member "extra"'],
  ])('a snapshot with %j names the pointer and the problem', (patch, problem) => {
    expect(problemOf(snapshot(patch))).toBe(`state file F is corrupt: ${problem}`);
  });

  it('another version is told before anything else', () => {
    expect(problemOf('{"version":9}')).toBe(
      'state file F is corrupt: /version: 9 is an unsupported version (this mock reads version 1)',
    );
  });

  it.each([
    ['{"kind":"nope"}', '/kind: unknown value "nope"'],
    [
      '{"kind":"clock","offsetSeconds":-1}',
      '/offsetSeconds: -1 must be a number of seconds from 0 to 100 years',
    ],
    [
      '{"kind":"grant","id":2,"record":{"clientId":"c","user":"u","scopes":[],"refresh":"r"}}',
      '/record: needs "refreshExpiresAt" beside "refresh"',
    ],
    ['{"kind":"reset","x":1}', 'unknown member "x"'],
    ['{"kind":7}', 'needs "kind" as a string'],
  ])('a journal line %s names its line, the pointer and the problem', (line, problem) => {
    const text = `${snapshot()}\n${line}\n{"kind":"reset"}\n`;
    expect(problemOf(text)).toBe(`state file F is corrupt: line 2: ${problem}`);
  });

  it('every change kind replays', () => {
    const lines = [
      snapshot(),
      JSON.stringify({ kind: 'code', code: 'c', record: code }),
      JSON.stringify({
        kind: 'grant',
        id: 3,
        record: { ...grant, access: 'a', accessExpiresAt: 4e12 },
      }),
      JSON.stringify({ kind: 'rotated', token: 'old', record: { grantId: 3, expiresAt: 4e12 } }),
      JSON.stringify({ kind: 'clock', offsetSeconds: 60 }),
      JSON.stringify({ kind: 'grant', id: 4, record: grant }),
      JSON.stringify({ kind: 'grant-ended', id: 4 }),
    ];
    const file = join(scratchDir('dasvc-state-'), 'state.json');
    writeFileSync(file, `${lines.join('\n')}\n`);
    expect(loadStateFile(file)).toEqual({
      version: 1,
      offsetSeconds: 60,
      grantSeq: 4,
      codes: [['c', code]],
      grants: [[3, { ...grant, access: 'a', accessExpiresAt: 4e12 }]],
      rotated: [['old', { grantId: 3, expiresAt: 4e12 }]],
    });
  });

  it('the clock offset the schema allows is the mock’s bound', () => {
    const schema = JSON.parse(
      readFileSync(new URL('../../../src/schemas/state-file.schema.json', import.meta.url), 'utf8'),
    ) as { definitions: { offsetSeconds: { maximum: number } } };
    expect(schema.definitions.offsetSeconds.maximum).toBe(MAX_SECONDS);
    expect(problemOf(snapshot({ offsetSeconds: MAX_SECONDS }))).toBe('loaded');
  });
});
