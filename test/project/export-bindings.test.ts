// The build hands a module's exports from one bundled file to another as plain values, taken once
// (scripts/parts.mjs): right only while every exported binding is bound once. A `let` or `var`
// exported, directly or by an export list, could be reassigned after the other file took it.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { filesUnder } from '../helpers/files-under.js';
import { ts } from '../helpers/typescript.js';

const ROOT = join(import.meta.dirname, '../..');

/** The exported bindings of a module (its text, else the file's) declared with `let` or `var`. */
function reassignableExports(
  path: string,
  text = readFileSync(join(ROOT, path), 'utf8'),
): string[] {
  const file = ts.createSourceFile(path, text, ts.ScriptTarget.Latest);
  const mutable = new Set<string>();
  const exported: string[] = [];
  for (const statement of file.statements) {
    if (!ts.isVariableStatement(statement)) continue;
    if ((statement.declarationList.flags & ts.NodeFlags.Const) !== 0) continue;
    const isExported = statement.modifiers?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword);
    for (const declaration of statement.declarationList.declarations) {
      const name = declaration.name.getText(file);
      mutable.add(name);
      if (isExported) exported.push(name);
    }
  }
  for (const statement of file.statements) {
    if (!ts.isExportDeclaration(statement) || statement.moduleSpecifier) continue;
    const clause = statement.exportClause;
    if (!clause || !ts.isNamedExports(clause)) continue;
    for (const element of clause.elements) {
      const local = (element.propertyName ?? element.name).getText(file);
      if (mutable.has(local)) exported.push(local);
    }
  }
  return exported.map((name) => `${path}: ${name}`);
}

describe('the modules of src/', () => {
  it('export no binding declared with let or var', () => {
    expect(filesUnder('src', '.ts').flatMap((path) => reassignableExports(path))).toEqual([]);
  });

  it('the check sees both forms, and neither a const nor a re-export', () => {
    const text = [
      'export let a = 1;',
      'let b = 2;',
      'var d = 4;',
      'export { b, d as e };',
      'export const c = 3;',
      "export { f } from './f.js';",
    ].join('\n');
    expect(reassignableExports('probe.ts', text)).toEqual([
      'probe.ts: a',
      'probe.ts: b',
      'probe.ts: d',
    ]);
  });
});
