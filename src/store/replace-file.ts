import {
  closeSync,
  fsyncSync,
  openSync,
  readdirSync,
  renameSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { basename, dirname, join } from 'node:path';

/** A replacement of a file whose temp file is already open: `commit` writes and renames it. */
export interface PreparedReplace {
  /** Replaces the file with `text`; once only. */
  commit(text: string): void;
  /** Removes the temp file unused (nothing happens after a commit). */
  abandon(): void;
}

function unlinkQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // already gone
  }
}

/**
 * Opens, ahead of the write, the temp file that will replace `file` (SPEC §2: mode 0600): so that
 * when the text is known only write and rename are left (what a refresh runs between
 * the service's answer and the moment its rotated pair is safe from a kill). A reader or a `kill
 * -9` at any moment sees the old file or the new one, whole. Callers hold the store's lock, the
 * only one that writes temp files named so here: those found beside the file were left by a
 * killed holder (or one robbed of the lock), and go.
 *
 * fsync comes after the rename, not before (decision). A `kill -9` cannot lose what
 * write() and rename() have handed to the kernel; only an OS crash or power cut can, and an fsync
 * before the rename would add ~0.5 ms (measured here) to the window in which a kill loses the
 * session, for a crash in that same millisecond. After the rename the file and its directory are
 * fsynced, so the command reports success only once the new file is durable. What remains is an OS
 * crash in the ~1 ms between rename and fsync, on a file system that would then commit the rename
 * before the data; ext4 (auto_da_alloc, its default) and btrfs flush the data of a file renamed
 * over another first, so the old file or the new one is found after such a crash there too.
 */
export function prepareReplace(file: string): PreparedReplace {
  const dir = dirname(file);
  const prefix = `${basename(file)}.`;
  try {
    for (const name of readdirSync(dir)) {
      if (name.startsWith(prefix) && /^\d+\.tmp$/.test(name.slice(prefix.length)))
        unlinkQuietly(join(dir, name));
    }
  } catch {
    // the directory cannot be listed: the open below says what is wrong
  }
  const temp = `${file}.${process.pid}.tmp`;
  let fd: number | undefined = openSync(temp, 'wx', 0o600);
  const abandon = (): void => {
    if (fd === undefined) return;
    closeSync(fd);
    fd = undefined;
    unlinkQuietly(temp);
  };
  return {
    abandon,
    commit(text) {
      if (fd === undefined) throw new Error(`${temp} is no longer open`);
      try {
        writeFileSync(fd, text);
        renameOver(temp, file);
      } catch (error) {
        abandon();
        throw error;
      }
      const done = fd;
      fd = undefined;
      try {
        fsyncSync(done);
      } finally {
        closeSync(done);
      }
      syncDirectory(dir);
    },
  };
}

/**
 * rename(2), which on Windows fails while another process has the file open (a dasvc reading it
 * without the lock, an antivirus scanner): retried there for up to ~1 s, as `conf` (through
 * `atomically`) did. Untested here: the CI runs on Linux.
 */
function renameOver(temp: string, file: string): void {
  for (let attempt = 1; ; attempt++) {
    try {
      renameSync(temp, file);
      return;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      const busy = code === 'EPERM' || code === 'EACCES' || code === 'EBUSY';
      if (process.platform !== 'win32' || !busy || attempt === 50) throw error;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 20);
    }
  }
}

/** Makes the rename itself durable; file systems and platforms that cannot fsync a directory skip it. */
function syncDirectory(dir: string): void {
  if (process.platform === 'win32') return;
  let fd: number | undefined;
  try {
    fd = openSync(dir, 'r');
    fsyncSync(fd);
  } catch {
    // EINVAL on some network file systems: the rename is still atomic, only not yet durable
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
