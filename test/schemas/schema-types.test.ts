// src/schemas/ holds the types and validators that scripts/schema-types.mjs (npm run schemas)
// generates from the formats' JSON Schemas: regenerated here into memory, they must equal the
// committed modules, so that a schema cannot change without the code that checks it.
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '../..');

describe('the generated schema modules', () => {
  it('are what the schemas give now (else: run npm run schemas)', async () => {
    const result = await new Promise<{ code: number; stderr: string }>((resolve) => {
      execFile(
        process.execPath,
        [join(ROOT, 'scripts/schema-types.mjs'), '--check'],
        (error, _stdout, stderr) => resolve({ code: error ? Number(error.code ?? 1) : 0, stderr }),
      );
    });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
  });
});
