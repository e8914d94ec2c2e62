import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './cli.js';

/** The files below `dir` (a path from the repository root) whose names end with `suffix`. */
export function filesUnder(dir: string, suffix: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory()) return filesUnder(path, suffix);
    return entry.name.endsWith(suffix) ? [path] : [];
  });
}
