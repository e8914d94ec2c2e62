import { existsSync, mkdirSync, statSync } from 'node:fs';
import { dirname } from 'node:path';

/**
 * `mkdir -p`, one folder at a time: node's recursive mkdir loops for ever where a parent refuses
 * children with ENOENT (anything under /proc), where a plain mkdir fails at once. Throws the first
 * folder's error (a folder made meanwhile by another process is no error).
 */
export function makeFolders(folder: string, mode?: number): void {
  const missing: string[] = [];
  for (let at = folder; !existsSync(at); at = dirname(at)) {
    missing.unshift(at);
    if (dirname(at) === at) break;
  }
  for (const path of missing) {
    try {
      mkdirSync(path, mode === undefined ? {} : { mode });
    } catch (error) {
      // Another process made it meanwhile (two first runs at once): as `mkdir -p`, fine.
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || !statSync(path).isDirectory())
        throw error;
    }
  }
}
