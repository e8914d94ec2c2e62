// scripts/declarations.mjs, which ships the declarations tsc wrote: the files the exports reach,
// the shared one holding only what the exported types use.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { shipDeclarations } from '../../scripts/declarations.mjs';

const work = mkdtempSync(join(tmpdir(), 'dasvc-declarations-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** Ships `files` (tsc's declarations, by path) with index.d.ts as the one export; the outputs. */
function ship(files: Record<string, string>): Record<string, string> {
  const from = join(work, `from-${Object.keys(files).length}-${Math.random()}`);
  const to = `${from}-out`;
  mkdirSync(from);
  for (const [path, text] of Object.entries(files)) writeFileSync(join(from, path), text);
  shipDeclarations({ from, to, entries: { 'index.d.ts': 'index.d.ts' }, peers: [] });
  const read = (name: string) => readFileSync(join(to, name), 'utf8');
  return { index: read('index.d.ts'), types: read('types.d.ts') };
}

describe('shipDeclarations', () => {
  it('keeps of the shared file what the exports reach, and the imports that serves', () => {
    const { index, types } = ship({
      'index.d.ts': "export { A } from './a.js';\nexport type { Shown } from './b.js';\n",
      'a.d.ts': [
        "import type { X } from 'pkg';",
        "import type { Y } from 'other';",
        "export interface A {\n    b: B;\n    y: Y;\n    note: 'Hidden';\n}",
        '/** Unlike internal, a shape. */',
        'export interface B {\n    n: number;\n}',
        '/** Takes an A, as its comment says. */',
        'export declare function internal(x: X): void;',
        '',
      ].join('\n'),
      'b.d.ts':
        'export type Shown = Reached;\nexport type Reached = string;\nexport declare class Hidden {\n}\n',
    });
    expect(index).toContain("export { A } from './types.js';");
    // A and what it names (B, Y's import), Shown and what it names.
    for (const kept of ['interface A', 'interface B', "from 'other'", 'type Shown', 'type Reached'])
      expect(types).toContain(kept);
    // Nothing any export reaches: the function (whose comment names A) and its package's import,
    // nor what a kept declaration names only in its comment (internal) or in a string (Hidden).
    for (const dropped of ['declare function internal', "from 'pkg'", 'class Hidden'])
      expect(types).not.toContain(dropped);
  });

  it('reads names from the code: a string or a comment hides none, and augmentations stay', () => {
    const { types } = ship({
      'index.d.ts': "export { A } from './a.js';\n",
      'a.d.ts': [
        "export interface A {\n    accept: 'text/*';\n    kind: Kind;\n}",
        '/** A kind, documented. */',
        "export type Kind = 'x';",
        'declare global {\n    interface ProcessEnv {\n        DASVC_X?: string;\n    }\n}',
        'export {};',
        '',
      ].join('\n'),
    });
    expect(types).toContain("export type Kind = 'x';");
    expect(types).toContain('declare global');
  });

  it('an export of everything keeps everything the shared file exports', () => {
    const { index, types } = ship({
      'index.d.ts': "export * from './a.js';\n",
      'a.d.ts': 'export interface A {\n}\nexport interface B {\n}\n',
    });
    expect(index).toContain("export * from './types.js';");
    expect(types).toContain('interface A');
    expect(types).toContain('interface B');
  });
});
