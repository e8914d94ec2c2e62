import { closeSync, openSync, readFileSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { UsageError } from '../errors.js';

export interface LockOptions {
  /** Give up waiting after this long (ms). */
  waitMs?: number;
  /** A lock older than this (ms) is considered abandoned even if its pid looks alive (pid reuse). */
  staleMs?: number;
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
}

interface LockContent {
  pid: number;
  at: number;
  nonce: string;
}

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function readLock(
  path: string,
): { content: LockContent | undefined; raw: string; mtimeMs: number } | undefined {
  try {
    const raw = readFileSync(path, 'utf8');
    const mtimeMs = statSync(path).mtimeMs;
    try {
      return { content: JSON.parse(raw) as LockContent, raw, mtimeMs };
    } catch {
      return { content: undefined, raw, mtimeMs };
    }
  } catch {
    return undefined;
  }
}

/**
 * Runs `fn` holding an exclusive lock file (O_CREAT|O_EXCL), so that across processes at most one
 * refreshes or writes at a time. A lock whose owner pid is gone, or that is older than `staleMs`,
 * is taken over: a crashed or Ctrl-C'd process never blocks the others for long.
 */
export async function withFileLock<T>(
  path: string,
  fn: () => Promise<T>,
  options: LockOptions = {},
): Promise<T> {
  const now = options.now ?? Date.now;
  const sleep =
    options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const waitMs = options.waitMs ?? 90_000;
  const staleMs = options.staleMs ?? 60_000;
  const nonce = `${process.pid}-${Math.random().toString(36).slice(2)}`;
  const started = now();
  for (;;) {
    try {
      const fd = openSync(path, 'wx', 0o600);
      try {
        writeSync(fd, JSON.stringify({ pid: process.pid, at: now(), nonce } satisfies LockContent));
      } finally {
        closeSync(fd);
      }
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') {
        throw new UsageError(`cannot create lock file ${path}: ${(error as Error).message}`, {
          code: 'lock_failed',
        });
      }
    }
    const held = readLock(path);
    if (held !== undefined) {
      const abandoned =
        (held.content !== undefined && !pidAlive(held.content.pid)) ||
        now() - (held.content?.at ?? held.mtimeMs) > staleMs;
      // Re-read right before removing, so a lock that changed hands meanwhile is left alone.
      if (abandoned && readLock(path)?.raw === held.raw) {
        try {
          unlinkSync(path);
        } catch {
          // someone else removed it first
        }
        continue;
      }
    }
    if (now() - started > waitMs) {
      throw new UsageError(
        `timed out waiting for lock file ${path}; remove it if no dasvc is running`,
        {
          code: 'lock_timeout',
        },
      );
    }
    await sleep(10 + Math.floor(Math.random() * 20));
  }
  try {
    return await fn();
  } finally {
    const held = readLock(path);
    if (held?.content?.nonce === nonce) {
      try {
        unlinkSync(path);
      } catch {
        // already gone
      }
    }
  }
}
