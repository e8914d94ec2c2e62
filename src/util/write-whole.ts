import { renameSync, rmSync, writeFileSync } from 'node:fs';

/**
 * Writes `text` to `file` whole, mode 0600: into a temporary file beside it, then renamed over it,
 * so a reader never meets half a file. A failed write leaves no temporary file behind.
 */
export function writeWhole(file: string, text: string): void {
  const temp = `${file}.${process.pid}.tmp`;
  try {
    // A temporary file a killed run left keeps its mode when written over: it goes first.
    rmSync(temp, { force: true });
    writeFileSync(temp, text, { mode: 0o600 });
    renameSync(temp, file);
  } catch (error) {
    try {
      rmSync(temp, { force: true });
    } catch {
      // no temporary file could be made either
    }
    throw error;
  }
}
