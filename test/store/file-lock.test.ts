import { spawn } from 'node:child_process';
import {
  existsSync,
  lstatSync,
  lutimesSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { build } from 'esbuild';
import { afterAll, describe, expect, it } from 'vitest';
import { UsageError } from '../../src/errors.js';
import { removeAbandoned, withFileLock } from '../../src/store/file-lock.js';

const dir = mkdtempSync(join(tmpdir(), 'dasvc-lock-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;
const lockPath = () => join(dir, `config-${++n}.json.lock`);

/** Takes the lock in this process; resolves once it is held, with the way to let it go. */
async function holdLock(path: string): Promise<{ holder: Promise<void>; release: () => void }> {
  let release!: () => void;
  let entered!: () => void;
  const inside = new Promise<void>((done) => (entered = done));
  const holder = withFileLock(
    path,
    () =>
      new Promise<void>((done) => {
        release = done;
        entered();
      }),
  );
  await inside;
  return { holder, release };
}

/** Runs fn under the lock and says it got it (the stale lock was taken over). */
const take = (path: string) => withFileLock(path, async () => 'taken');

/** A lock directory with an owner that is alive (pid 1) and a time long past. */
function staleLock(path: string): void {
  mkdirSync(path);
  writeFileSync(join(path, 'owner.json'), JSON.stringify({ pid: 1, host: hostname(), since: 1 }));
  utimesSync(path, new Date(1000), new Date(1000));
}

const stampAt = (path: string) => {
  const { ino, mtimeMs } = lstatSync(path);
  return { ino, mtimeMs };
};

describe('removeAbandoned: one waiter at a time takes an abandoned lock over', () => {
  it('removes the lock judged abandoned, and leaves one that changed hands since', async () => {
    const path = lockPath();
    staleLock(path);
    const judged = stampAt(path);
    // Another waiter took it over first: its own lock now stands there.
    rmSync(path, { recursive: true });
    mkdirSync(path);
    await removeAbandoned(path, judged, 5000, Date.now);
    expect(existsSync(path)).toBe(true);
    await removeAbandoned(path, stampAt(path), 5000, Date.now);
    expect(existsSync(path)).toBe(false);
    expect(existsSync(`${path}.takeover`)).toBe(false);
  });

  it('removes nothing while another waiter takes over; a takeover left by a kill is cleared', async () => {
    const path = lockPath();
    staleLock(path);
    const judged = stampAt(path);
    mkdirSync(`${path}.takeover`);
    await removeAbandoned(path, judged, 5000, Date.now);
    expect(existsSync(path)).toBe(true);
    // Older than the staleness: its waiter died within the takeover.
    utimesSync(`${path}.takeover`, new Date(1000), new Date(1000));
    await removeAbandoned(path, judged, 5000, Date.now);
    expect(existsSync(`${path}.takeover`)).toBe(false);
    await removeAbandoned(path, judged, 5000, Date.now);
    expect(existsSync(path)).toBe(false);
  });

  it('an old lock is judged by what its holder does, never by its time alone', async () => {
    // Decades old, its holder alive: not removed at once (proper-lockfile's own rule), only
    // once its time has stood still for the staleness while watched.
    const path = lockPath();
    staleLock(path);
    const waiting = withFileLock(path, async () => 'taken', { staleMs: 60_000, waitMs: 300 });
    await expect(waiting).rejects.toMatchObject({ code: 'lock_timeout' });
    expect(existsSync(join(path, 'owner.json'))).toBe(true);
  });

  it('many waiters on one abandoned lock: one holder at a time', async () => {
    const path = lockPath();
    staleLock(path);
    let inside = 0;
    let most = 0;
    await Promise.all(
      Array.from({ length: 12 }, () =>
        withFileLock(
          path,
          async () => {
            inside++;
            most = Math.max(most, inside);
            await new Promise((done) => setTimeout(done, 20));
            inside--;
          },
          { staleMs: 2000 },
        ),
      ),
    );
    expect(most).toBe(1);
  });
});

// The stale cases wait out the 5 s staleness each; side by side they take 5 s in all.
describe.concurrent('withFileLock (proper-lockfile)', () => {
  it('a folder that cannot take the lock is said in words, with the folder and the reason', async () => {
    const file = join(dir, 'a-file');
    writeFileSync(file, '');
    const error = await withFileLock(join(file, 'x.lock'), async () => 'taken').catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(UsageError);
    expect(error).toMatchObject({
      code: 'lock_failed',
      message: `cannot take the lock ${join(file, 'x.lock')}: a folder on its path is a file`,
      facts: { folder: file, errno: 'ENOTDIR' },
    });
  });
  it('serialises holders in one process, and removes the lock afterwards', async () => {
    const path = lockPath();
    let inside = 0;
    let most = 0;
    await Promise.all(
      Array.from({ length: 6 }, () =>
        withFileLock(path, async () => {
          inside++;
          most = Math.max(most, inside);
          await new Promise((done) => setImmediate(done));
          inside--;
        }),
      ),
    );
    expect(most).toBe(1);
    expect(readdirSync(dir)).not.toContain(path.slice(dir.length + 1));
  });

  it('regression: every kind of stale lock is taken over with the default settings (each blocked for 60–90 s)', async () => {
    const hour = Date.now() / 1000 + 3600;
    // a kill between create and write: an empty lock file, just made
    const empty = lockPath();
    writeFileSync(empty, '');
    // pid reuse: a v0.1 lock naming a live process that is not a dasvc (our parent)
    const livePid = lockPath();
    writeFileSync(livePid, JSON.stringify({ pid: process.ppid, at: Date.now(), nonce: 'x' }));
    // clock stepped back: a lock whose time is an hour ahead
    const future = lockPath();
    mkdirSync(future);
    writeFileSync(
      join(future, 'owner.json'),
      JSON.stringify({ pid: process.ppid, since: Date.now() }),
    );
    utimesSync(future, hour, hour);
    const futureFile = lockPath();
    writeFileSync(futureFile, JSON.stringify({ pid: process.ppid, at: Date.now() + 3_600_000 }));
    utimesSync(futureFile, hour, hour);
    // a directory in its place
    const directory = lockPath();
    mkdirSync(directory);
    // unreadable
    const unreadable = lockPath();
    writeFileSync(unreadable, 'x', { mode: 0 });
    await expect(
      Promise.all([empty, livePid, future, futureFile, directory, unreadable].map(take)),
    ).resolves.toEqual(Array(6).fill('taken'));
  });

  it('regression: a symlink in its place is taken over, and nothing it points to is touched (one waited for ever, one lost its target’s owner.json)', async () => {
    // A dangling symlink, just made (its own time is now: the staleness is waited out).
    const dangling = lockPath();
    symlinkSync(join(dir, 'nowhere'), dangling);
    // A symlink to an old directory outside the lock's folder, with an owner.json of its own.
    const outside = mkdtempSync(join(tmpdir(), 'dasvc-lock-target-'));
    try {
      writeFileSync(join(outside, 'owner.json'), '{"pid":1}');
      const old = Date.now() / 1000 - 3600;
      utimesSync(outside, old, old);
      const toOld = lockPath();
      symlinkSync(outside, toOld);
      lutimesSync(toOld, old, old);
      await expect(Promise.all([dangling, toOld].map(take))).resolves.toEqual(['taken', 'taken']);
      expect(readFileSync(join(outside, 'owner.json'), 'utf8')).toBe('{"pid":1}');
      expect(readdirSync(outside)).toEqual(['owner.json']);
      expect(existsSync(toOld)).toBe(false);
    } finally {
      rmSync(outside, { recursive: true, force: true });
    }
  });

  it('regression: a lock whose holder was killed with -9 is taken over at once', async () => {
    const path = lockPath();
    // This source, not dist/ (which may be older): a plain node child cannot load TypeScript, so
    // the module is bundled for it, dependencies included.
    const module = join(dir, 'file-lock.cjs');
    await build({
      entryPoints: [resolve(import.meta.dirname, '../../src/store/file-lock.ts')],
      outfile: module,
      bundle: true,
      platform: 'node',
      format: 'cjs',
      logLevel: 'silent',
    });
    // A child holding the lock forever (its mtime kept fresh), then killed without cleanup.
    const child = spawn(
      process.execPath,
      [
        '-e',
        `const { withFileLock } = require(${JSON.stringify(module)});
         withFileLock(${JSON.stringify(path)}, () => { console.log('held'); return new Promise(() => {}); });`,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    try {
      await new Promise<void>((done) => child.stdout.once('data', () => done()));
      const notices: string[] = [];
      child.kill('SIGKILL');
      await new Promise((done) => child.once('exit', done));
      const waiting = withFileLock(path, async () => 'taken', { onWait: (m) => notices.push(m) });
      await expect(waiting).resolves.toBe('taken');
      // Its pid is gone: no staleness to wait out, nothing to say.
      expect(notices).toEqual([]);
    } finally {
      child.kill('SIGKILL');
    }
  });

  it('says by default after 1 s of waiting, not before: on a virtual clock, to the poll', async () => {
    const path = lockPath();
    const { holder, release } = await holdLock(path);
    // The waiter's time moves only as it sleeps between polls: load cannot move the notice.
    let clock = 0;
    let noticedAt: number | undefined;
    const waiter = withFileLock(path, async () => 'taken', {
      now: () => clock,
      sleep: async (ms) => {
        clock += ms;
        await new Promise((done) => setImmediate(done));
      },
      onWait: () => {
        noticedAt ??= clock;
        release();
      },
    });
    await holder;
    await expect(waiter).resolves.toBe('taken');
    expect(noticedAt).toBeGreaterThanOrEqual(1000);
    // One poll (25–50 ms) past the second at most.
    expect(noticedAt).toBeLessThanOrEqual(1050);
  });

  it('says once who holds it and since when; a live holder is never taken over', async () => {
    const path = lockPath();
    const notices: string[] = [];
    let noticed!: () => void;
    const told = new Promise<void>((done) => (noticed = done));
    let order: string[] = [];
    let entered!: () => void;
    const inside = new Promise<void>((done) => (entered = done));
    const holder = withFileLock(path, async () => {
      order.push('holder in');
      entered();
      await told;
      order.push('holder out');
    });
    await inside;
    const waiter = withFileLock(
      path,
      async () => {
        order.push('waiter in');
      },
      {
        // Waits past its own staleness (2 s): only the holder's refreshed mtime keeps the lock.
        staleMs: 2000,
        noticeMs: 3000,
        onWait: (message) => {
          notices.push(message);
          noticed();
        },
      },
    );
    await Promise.all([holder, waiter]);
    expect(order).toEqual(['holder in', 'holder out', 'waiter in']);
    expect(notices).toHaveLength(1);
    expect(notices[0]).toMatch(
      new RegExp(
        `^waiting for the lock .*: held by pid ${process.pid} on .* since \\d{4}-\\d\\d-\\d\\dT`,
      ),
    );
    order = [];
  });

  it('gives up on a live holder after waitMs with a usage error naming the holder', async () => {
    const path = lockPath();
    const { holder, release } = await holdLock(path);
    await expect(withFileLock(path, async () => 'never', { waitMs: 100 })).rejects.toSatisfy(
      (error: unknown) =>
        error instanceof UsageError &&
        (error as UsageError).code === 'lock_timeout' &&
        error.message.includes(`pid ${process.pid}`),
    );
    release();
    await holder;
  });
});
