import { closeSync, constants, fstatSync, openSync, readFileSync } from 'node:fs';

/**
 * The text of a file that must be a regular one (the config file, and what completion reads), read
 * only once that is known. Opened without blocking and checked before it is read: a FIFO or a
 * device in its place would otherwise hold a synchronous read, and with it the process, for ever.
 * An error with code `ENOTREG` (`EISDIR` for a folder) says so; node's own errors pass through.
 */
export function readRegularFile(path: string): string {
  // O_NONBLOCK is Unix-only; Windows has no FIFO in the file system to open.
  const fd = openSync(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  try {
    const kind = fstatSync(fd);
    if (!kind.isFile()) {
      const [code, what] = kind.isDirectory()
        ? ['EISDIR', 'is a folder']
        : ['ENOTREG', 'is not a regular file'];
      throw Object.assign(new Error(`${path} ${what}`), { code });
    }
    return readFileSync(fd, 'utf8');
  } finally {
    closeSync(fd);
  }
}
