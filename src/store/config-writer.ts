import {
  chmodSync,
  closeSync,
  fsyncSync,
  openSync,
  readdirSync,
  statSync,
  unlinkSync,
} from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type Conf from 'conf';
import type { StoreData } from './profile-store.js';

/** The config file's one writer: conf, the package's library for profiles and tokens on disk. */
export interface ConfigWriter {
  /** Replaces the whole file with `data`: atomic, mode 0600, tab-indented JSON; synchronous. */
  write(data: StoreData): void;
}

/** The config file's text as dasvc writes it: JSON indented with tabs. */
function storeText(data: StoreData): string {
  return JSON.stringify(data, undefined, '\t');
}

/**
 * Opens conf on `file`, whose folder exists; callers hold the store's lock. conf is loaded here,
 * by the commands that write, never by a read: it weighs more than the rest of `dasvc rpc`.
 * Throws what conf throws.
 */
export async function openConfigWriter(file: string): Promise<ConfigWriter> {
  const { default: Conf } = await import('conf');
  const conf: Conf<StoreData> = new Conf<StoreData>({
    cwd: dirname(file),
    configName: basename(file).replace(/\.json$/, ''),
    configFileMode: 0o600,
    // A file dasvc cannot read is reported by the store's read and never replaced.
    clearInvalidConfig: false,
    // Profile names may hold dots: keys are taken as they are.
    accessPropertiesByDotNotation: false,
    serialize: storeText,
  });
  removeLeftTemps(file);
  return {
    write(data) {
      conf.store = data;
      // conf writes in place where it cannot rename (under SNAP, or EXDEV), and a mode given to a
      // write reaches only a file it creates: an existing file keeps its own.
      if ((statSync(file).mode & 0o777) !== 0o600) chmodSync(file, 0o600);
      syncFolder(dirname(file));
    },
  };
}

/**
 * conf writes a temp file beside the config file and renames it over it; a writer killed in
 * between leaves it. Only a holder of the lock writes, so the ones found now were left so, and go:
 * they may hold tokens.
 */
function removeLeftTemps(file: string): void {
  const left = new RegExp(`^${escape(basename(file))}\\.tmp-\\d{10}[0-9a-f]{6}$`);
  let names: string[];
  try {
    names = readdirSync(dirname(file));
  } catch {
    return; // the write says what is wrong with the folder
  }
  for (const name of names) {
    if (!left.test(name)) continue;
    try {
      unlinkSync(join(dirname(file), name));
    } catch {
      // gone already
    }
  }
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * conf fsyncs the file before its rename; this makes the rename itself durable before the command
 * reports success. File systems and platforms that cannot fsync a folder skip it.
 */
function syncFolder(folder: string): void {
  if (process.platform === 'win32') return;
  let fd: number | undefined;
  try {
    fd = openSync(folder, 'r');
    fsyncSync(fd);
  } catch {
    // EINVAL on some network file systems: the rename is still atomic, only not yet durable
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
