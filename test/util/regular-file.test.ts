import { execFileSync } from 'node:child_process';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fileProblem } from '../../src/util/file-problem.js';
import { readRegularFile } from '../../src/util/regular-file.js';
import { scratchDir } from '../helpers/scratch.js';

describe('readRegularFile', () => {
  it('reads a regular file, also through a symlink', () => {
    const dir = scratchDir('dasvc-regular-');
    writeFileSync(join(dir, 'a.json'), '{"a":"é"}');
    symlinkSync(join(dir, 'a.json'), join(dir, 'link.json'));
    expect(readRegularFile(join(dir, 'a.json'))).toBe('{"a":"é"}');
    expect(readRegularFile(join(dir, 'link.json'))).toBe('{"a":"é"}');
  });

  it('refuses a FIFO, a device and a folder without waiting; node’s own errors pass through', () => {
    const dir = scratchDir('dasvc-regular-');
    execFileSync('mkfifo', [join(dir, 'fifo')]);
    mkdirSync(join(dir, 'folder'));
    for (const path of [join(dir, 'fifo'), '/dev/zero']) {
      expect(() => readRegularFile(path)).toThrow(expect.objectContaining({ code: 'ENOTREG' }));
    }
    const problem = (path: string) => {
      try {
        readRegularFile(path);
        return 'read';
      } catch (error) {
        return fileProblem(error);
      }
    };
    expect(problem(join(dir, 'fifo'))).toBe('not a regular file');
    expect(problem(join(dir, 'missing'))).toBe('no such file');
    expect(problem(join(dir, 'folder'))).toBe('it is a folder');
  });
});
