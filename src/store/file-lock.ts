import * as fs from 'node:fs';
import { hostname } from 'node:os';
import { dirname, join } from 'node:path';
import { UsageError } from '../errors.js';
import { fileProblem, unwritableFacts } from '../util/file-problem.js';

export interface LockOptions {
  /** Give up waiting for a live holder after this long (ms). Default 90 s. */
  waitMs?: number;
  /**
   * A lock whose mtime was not refreshed for this long (ms) is abandoned and taken over; a holder
   * refreshes it every second. Default 5 s, at least 2 s (proper-lockfile's floor).
   */
  staleMs?: number;
  /** Told once, after `noticeMs` of waiting, who holds the lock and since when (the CLI: stderr). */
  onWait?: (message: string) => void;
  /** How long to wait before `onWait` (ms). Default 1 s. */
  noticeMs?: number;
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
}

/** What a holder leaves inside the lock directory, for the waiters' notice. */
interface LockOwner {
  pid: number;
  host: string;
  since: number;
  command: string;
}

const OWNER_FILE = 'owner.json';
/** proper-lockfile's staleness, for a lock it must never remove itself, however old. */
const NEVER_STALE = Number.MAX_SAFE_INTEGER;
const DEFAULT_STALE_MS = 5000;

/** Who we are, for the waiters: pid, host, and the command words (never a flag value: no secret). */
function ownerRecord(): LockOwner {
  const words: string[] = [];
  for (const arg of process.argv.slice(2)) {
    if (!/^[a-z][a-z-]*$/.test(arg) || words.length === 2) break;
    words.push(arg);
  }
  return {
    pid: process.pid,
    host: hostname(),
    since: Date.now(),
    command: ['dasvc', ...words].join(' '),
  };
}

/** Whether the lock's own path (never what a symlink there points to) is a real directory. */
function isLockDirectory(path: string): boolean {
  try {
    return fs.lstatSync(path).isDirectory();
  } catch {
    return false;
  }
}

/**
 * The fs proper-lockfile works through. mkdir leaves owner.json in the new lock at once, before
 * proper-lockfile reads the mtime it then keeps fresh (a later write would change that mtime and
 * make the lock look compromised). stat is lstat: a symlink in the lock's place (dangling, or to a
 * directory elsewhere) is judged by its own time, like any other thing left there. rmdir removes
 * owner.json first, and only from a real directory; anything else in a lock's place (a v0.1 lock
 * file, an empty file left by a kill, a symlink) is unlinked itself, and what a symlink points to
 * is never touched.
 */
const lockFs = {
  ...fs,
  stat: fs.lstat,
  mkdir(path: string, callback: (error: NodeJS.ErrnoException | null) => void): void {
    fs.mkdir(path, (error) => {
      if (!error) {
        try {
          fs.writeFileSync(join(path, OWNER_FILE), JSON.stringify(ownerRecord()), { mode: 0o600 });
        } catch {
          // only for the waiters' notice
        }
      }
      callback(error);
    });
  },
  rmdir(path: string, callback: (error: NodeJS.ErrnoException | null) => void): void {
    if (!isLockDirectory(path)) {
      fs.unlink(path, callback);
      return;
    }
    fs.unlink(join(path, OWNER_FILE), () => {
      fs.rmdir(path, (error) => {
        if (error?.code === 'ENOTDIR') fs.unlink(path, callback);
        else callback(error);
      });
    });
  },
};

function readOwner(path: string): Partial<LockOwner> | undefined {
  try {
    // The lock's own path: a symlink's target is not ours to read (its owner is unknown).
    const kind = fs.lstatSync(path);
    if (!kind.isDirectory() && !kind.isFile()) return undefined;
    const file = kind.isDirectory() ? join(path, OWNER_FILE) : path;
    const value = JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, unknown>;
    // `at`: the older name of `since`, in a lock file rather than a folder.
    return {
      ...value,
      since: (value.since ?? value.at) as number | undefined,
    } as Partial<LockOwner>;
  } catch {
    // gone, empty or not JSON: unknown
    return undefined;
  }
}

/** Whether the recorded holder is a process of this machine that no longer exists. */
function holderGone(owner: Partial<LockOwner> | undefined): boolean {
  if (typeof owner?.pid !== 'number' || (owner.host !== undefined && owner.host !== hostname()))
    return false;
  try {
    process.kill(owner.pid, 0);
    return false;
  } catch (error) {
    // EPERM: it exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

/** What is at the lock's path (a symlink itself, not its target): which one, and its time. */
interface Stamp {
  ino: number;
  mtimeMs: number;
}

function stampOf(path: string): Stamp | undefined {
  try {
    const { ino, mtimeMs } = fs.lstatSync(path);
    return { ino, mtimeMs };
  } catch {
    return undefined;
  }
}

const sameStamp = (a: Stamp | undefined, b: Stamp | undefined) =>
  a !== undefined && b !== undefined && a.ino === b.ino && a.mtimeMs === b.mtimeMs;

/**
 * Removes the lock judged abandoned (`judged`), unless it is no longer that one. Waiters that
 * judged it together must not each remove what is there: the first would take the lock, and the
 * next remove that new lock, and both would hold one. So the removal is done by one waiter at a
 * time, under a second lock (`<path>.takeover`, an atomic mkdir held for a look and an rmdir),
 * after looking again: a lock that changed hands meanwhile is left alone. A takeover lock older
 * than `staleMs` was left by a waiter killed within those few steps, and is removed.
 */
export async function removeAbandoned(
  path: string,
  judged: Stamp,
  staleMs: number,
  now: () => number,
): Promise<void> {
  const guard = `${path}.takeover`;
  try {
    fs.mkdirSync(guard);
  } catch {
    const left = stampOf(guard);
    if (left !== undefined && now() - left.mtimeMs > staleMs)
      fs.rmSync(guard, { force: true, recursive: true });
    return;
  }
  try {
    if (sameStamp(stampOf(path), judged))
      await new Promise<void>((resolve) => lockFs.rmdir(path, () => resolve()));
  } finally {
    fs.rmSync(guard, { force: true, recursive: true });
  }
}

/** "held by pid 4242 on host (dasvc token refresh) since 2026-…Z", or what is known of it. */
function describeHolder(path: string, staleMs: number): string {
  const owner = readOwner(path);
  const who =
    owner?.pid === undefined
      ? 'held by an unknown process'
      : `held by pid ${String(owner.pid)}${owner.host ? ` on ${owner.host}` : ''}${owner.command ? ` (${owner.command})` : ''}`;
  const since =
    typeof owner?.since === 'number' && Number.isFinite(owner.since)
      ? ` since ${new Date(owner.since).toISOString()}`
      : '';
  return `waiting for the lock ${path}: ${who}${since}; a lock its holder stops refreshing is taken over after ${Math.round(staleMs / 1000)} s`;
}

/**
 * Runs `fn` holding an exclusive lock at `path` across processes (proper-lockfile: an atomic
 * mkdir, its mtime refreshed every second while held), so that at most one process refreshes or
 * writes at a time. A lock whose holder process is gone (same host) is taken over at once; one not
 * refreshed for `staleMs` too: a live unrelated pid (pid reuse), a file, directory or symlink
 * (dangling, or to a directory elsewhere, which stays untouched) in its place, a time in the future
 * (clock stepped back: judged by how long its mtime has stood still while we watched) never block
 * for more than `staleMs` and a poll.
 */
export async function withFileLock<T>(
  path: string,
  fn: () => Promise<T>,
  options: LockOptions = {},
): Promise<T> {
  const { lock } = await import('proper-lockfile');
  const now = options.now ?? Date.now;
  const sleep =
    options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const waitMs = options.waitMs ?? 90_000;
  const staleMs = Math.max(2000, options.staleMs ?? DEFAULT_STALE_MS);
  const noticeMs = options.noticeMs ?? 1000;
  const started = now();
  let told = false;
  let watched: { stamp: Stamp; since: number } | undefined;
  let release!: () => Promise<void>;
  for (;;) {
    try {
      release = await lock(path, {
        lockfilePath: path,
        realpath: false,
        // Never stale to proper-lockfile, whose removal of a stale lock is not one waiter's at a
        // time: abandoned locks are removed here (removeAbandoned).
        stale: NEVER_STALE,
        update: 1000,
        retries: 0,
        fs: lockFs,
        // Compromised (our mtime was changed under us): the work goes on; release is then a no-op.
        onCompromised: () => {},
      });
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ELOCKED') {
        // The lock's folder could not take it (read-only, not ours): no lock to wait for.
        throw new UsageError(`cannot take the lock ${path}: ${fileProblem(error)}`, {
          code: 'lock_failed',
          facts: { lock: path, ...unwritableFacts(dirname(path), error) },
        });
      }
    }
    const stamp = stampOf(path);
    // Its holder is dead (kill -9), or stopped refreshing it whatever its time says (a clock
    // stepped back): take it over, unless it changed hands meanwhile.
    const abandoned =
      stamp !== undefined &&
      (holderGone(readOwner(path)) ||
        (sameStamp(stamp, watched?.stamp) && now() - watched!.since > staleMs));
    if (abandoned) {
      await removeAbandoned(path, stamp, staleMs, now);
      watched = undefined;
      continue;
    }
    if (!sameStamp(stamp, watched?.stamp))
      watched = stamp === undefined ? undefined : { stamp, since: now() };
    const waited = now() - started;
    if (!told && waited >= noticeMs && options.onWait) {
      told = true;
      options.onWait(describeHolder(path, staleMs));
    }
    if (waited > waitMs) {
      throw new UsageError(
        `timed out waiting for the lock ${path} (${describeHolder(path, staleMs)})`,
        {
          code: 'lock_timeout',
          facts: { lock: path },
        },
      );
    }
    await sleep(25 + Math.floor(Math.random() * 25));
  }
  try {
    return await fn();
  } finally {
    await release().catch(() => {});
  }
}
