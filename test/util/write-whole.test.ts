import {
  chmodSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { writeWhole } from '../../src/util/write-whole.js';
import { scratchDir } from '../helpers/scratch.js';

const dir = scratchDir('dasvc-write-whole-');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('writeWhole', () => {
  it('replaces the file whole, mode 0600, and leaves nothing beside it', () => {
    const file = join(dir, 'a.json');
    writeFileSync(file, 'old', { mode: 0o644 });
    writeWhole(file, 'new');
    expect(readFileSync(file, 'utf8')).toBe('new');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readdirSync(dir)).toEqual(['a.json']);
  });

  it("a killed run's temporary file goes first, so its mode does not carry over", () => {
    const file = join(dir, 'b.json');
    const leftover = `${file}.${process.pid}.tmp`;
    writeFileSync(leftover, 'half', { mode: 0o644 });
    chmodSync(leftover, 0o644);
    writeWhole(file, 'whole');
    expect(readFileSync(file, 'utf8')).toBe('whole');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readdirSync(dir)).not.toContain(`b.json.${process.pid}.tmp`);
  });

  it('a write that fails throws and leaves no temporary file', () => {
    // A folder where the file goes: the temporary file is written, the rename over it fails.
    const target = join(dir, 'target');
    mkdirSync(target);
    expect(() => writeWhole(target, 'text')).toThrow(expect.objectContaining({ code: 'EISDIR' }));
    expect(readdirSync(dir).filter((name) => name.endsWith('.tmp'))).toEqual([]);
  });
});
