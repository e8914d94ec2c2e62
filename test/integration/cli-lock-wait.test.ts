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

describe('the store lock seen from the CLI (issue 14.4)', () => {
  it('a command kept waiting 1 s says once on stderr who holds the lock and since when, then goes on', async () => {
    const dir = freshConfigDir();
    const login = await runCli(loginArgs(mock.url), dir, { env: browserEnv() });
    expect(login.code, login.stderr).toBe(0);
    let release!: () => void;
    const released = new Promise<void>((done) => (release = done));
    let entered!: () => void;
    const inside = new Promise<void>((done) => (entered = done));
    const holder = withFileLock(join(dir, 'config.json.lock'), async () => {
      entered();
      await released;
    });
    await inside;
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
});
