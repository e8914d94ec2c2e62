import {
  lutimesSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { withFileLock } from '../../src/store/file-lock.js';
import {
  browserEnv,
  expectNoLeaksAfterAll,
  freshConfigDir,
  loginArgs,
  runCli,
  startMockForCli,
} from '../helpers/cli.js';

const mock = startMockForCli();
expectNoLeaksAfterAll();

/** The config folder's lock held in this process, until `release`. */
async function holdingLock(dir: string): Promise<{ release: () => void; holder: Promise<void> }> {
  let release!: () => void;
  const released = new Promise<void>((done) => (release = done));
  let entered!: () => void;
  const inside = new Promise<void>((done) => (entered = done));
  const holder = withFileLock(join(dir, 'config.json.lock'), async () => {
    entered();
    await released;
  });
  await inside;
  return { release, holder };
}

describe('the store lock seen from the CLI', () => {
  it('a command kept waiting 1 s says once on stderr who holds the lock and since when, then goes on', async () => {
    const dir = freshConfigDir();
    const login = await runCli(loginArgs(mock.url), dir, { env: browserEnv() });
    expect(login.code, login.stderr).toBe(0);
    const { release, holder } = await holdingLock(dir);
    const refresh = await runCli(['token', 'refresh'], dir, {
      // Let go of the lock once the notice is out (never write to its stdin).
      inputWhen: (stderr) => {
        if (stderr.includes('waiting for the lock')) release();
        return undefined;
      },
    });
    release();
    await holder;
    expect(refresh.code, refresh.stderr).toBe(0);
    expect(refresh.stderr).toMatch(
      new RegExp(
        `waiting for the lock .*config\\.json\\.lock: held by pid ${process.pid} on .* since \\d{4}-\\d\\d-\\d\\dT`,
      ),
    );
    expect(refresh.stderr.match(/waiting for the lock/g)).toHaveLength(1);
  });

  it('profile use of a profile removed while it waited for the lock: refused, nothing changed', async () => {
    const dir = freshConfigDir();
    for (const args of [loginArgs(mock.url), ['--profile', 'x', ...loginArgs(mock.url)]]) {
      const login = await runCli(args, dir, { env: browserEnv() });
      expect(login.code, login.stderr).toBe(0);
    }
    const file = join(dir, 'config.json');
    const { release, holder } = await holdingLock(dir);
    const use = await runCli(['profile', 'use', 'x'], dir, {
      // It read the profiles and waits: `profile remove x` runs meanwhile, as another process.
      inputWhen: (stderr) => {
        if (stderr.includes('waiting for the lock')) {
          const data = JSON.parse(readFileSync(file, 'utf8'));
          delete data.profiles.x;
          writeFileSync(file, JSON.stringify(data));
          release();
        }
        return undefined;
      },
    });
    release();
    await holder;
    expect(use.code).toBe(2);
    expect(use.stderr).toContain('no profile named "x"');
    const after = JSON.parse(readFileSync(file, 'utf8'));
    expect(after.activeProfile ?? 'default').toBe('default');
    expect(Object.keys(after.profiles)).toEqual(['default']);
  });

  it('regression: a symlink at the lock path (dangling, or to a directory elsewhere) is recovered; its target is not touched', async () => {
    const dir = freshConfigDir();
    const login = await runCli(loginArgs(mock.url), dir, { env: browserEnv() });
    expect(login.code, login.stderr).toBe(0);
    const lock = join(dir, 'config.json.lock');
    // Dangling: the refresh waited for ever.
    symlinkSync(join(dir, 'nowhere'), lock);
    const first = await runCli(['token', 'refresh'], dir);
    expect(first.code, first.stderr).toBe(0);
    expect(() => readdirSync(lock)).toThrow();

    // To an old directory outside the config folder: its owner.json was deleted.
    const outside = mkdtempSync(join(tmpdir(), 'dasvc-lock-target-'));
    try {
      writeFileSync(join(outside, 'owner.json'), '{"pid":1}');
      const old = Date.now() / 1000 - 3600;
      utimesSync(outside, old, old);
      symlinkSync(outside, lock);
      lutimesSync(lock, old, old);
      const second = await runCli(['token', 'refresh'], dir);
      expect(second.code, second.stderr).toBe(0);
      expect(readdirSync(outside)).toEqual(['owner.json']);
      expect(readFileSync(join(outside, 'owner.json'), 'utf8')).toBe('{"pid":1}');
    } finally {
      rmSync(outside, { recursive: true, force: true });
    }
  });
});
