// CONTRIBUTING.md's folder map (Where things are) names every folder of the tree once, and no other.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '../..');
/** Top-level folders that are not source: generated, installed, or the machinery's. */
const NOT_SOURCE = new Set(['node_modules', 'dist', 'coverage', '.git', '.tmp', '.ci']);

/** Whether a folder holds a file somewhere below it (git keeps no empty folders). */
function holdsFiles(dir: string): boolean {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).some(
    (entry) => !entry.isDirectory() || holdsFiles(`${dir}${entry.name}/`),
  );
}

function foldersUnder(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && holdsFiles(`${dir}${entry.name}/`))
    .flatMap((entry) => {
      const path = `${dir}${entry.name}/`;
      return [path, ...foldersUnder(path)];
    });
}

describe('the folder map of CONTRIBUTING.md', () => {
  it('lists exactly the folders of the tree (all of src/, and the top level)', () => {
    const guide = readFileSync(join(ROOT, 'CONTRIBUTING.md'), 'utf8');
    const section = guide.slice(guide.indexOf('\n## Where things are\n'));
    const block = /```text\n([\s\S]*?)```/.exec(section)![1]!;
    const mapped = block
      .split('\n')
      .map((line) => line.split(/\s+/)[0]!)
      .filter((path) => path.endsWith('/'));
    const topLevel = readdirSync(ROOT, { withFileTypes: true })
      .filter((entry) => entry.isDirectory() && !NOT_SOURCE.has(entry.name))
      .map((entry) => `${entry.name}/`);
    const tree = [...topLevel, ...foldersUnder('src/')];
    expect(new Set(mapped).size, 'a folder is listed twice').toBe(mapped.length);
    expect([...mapped].sort()).toEqual([...tree].sort());
  });
});
