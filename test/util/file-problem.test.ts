import { describe, expect, it } from 'vitest';
import { fileProblem } from '../../src/util/file-problem.js';

const failure = (code: string) => Object.assign(new Error(`${code}: what node says`), { code });

describe('fileProblem', () => {
  it("says node's common codes in words, and anything else as its message", () => {
    expect(fileProblem(failure('ENOENT'))).toBe('no such file');
    expect(fileProblem(failure('EISDIR'))).toBe('it is a folder');
    expect(fileProblem(failure('ENOTDIR'))).toBe('a folder on its path is a file');
    expect(fileProblem(failure('EACCES'))).toBe('permission denied');
    expect(fileProblem(failure('EPERM'))).toBe('permission denied');
    expect(fileProblem(failure('ENOSPC'))).toBe('no space left on the device');
    expect(fileProblem(failure('EMFILE'))).toBe('EMFILE: what node says');
    expect(fileProblem('odd')).toBe('odd');
  });
});
