// `profile list` and `profile show` mark the active profile the same way: `*` before its name,
// and show has no `active:` line of its own.
import { rmSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { browserEnv, freshConfigDir, loginArgs, runCli, startMockForCli } from '../helpers/cli.js';

const mock = startMockForCli();
const dir = freshConfigDir();
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the active profile, marked alike', () => {
  it('* default in list and in show; work unmarked in both', async () => {
    for (const extra of [[], ['--profile', 'work']]) {
      const login = await runCli([...loginArgs(mock.url, 'crm'), ...extra], dir, {
        env: browserEnv(),
      });
      expect(login.code, login.stderr).toBe(0);
    }
    const list = (await runCli(['profile', 'list'], dir)).stdout.split('\n');
    expect(list[0]).toMatch(/^\* default\t/);
    expect(list[1]).toMatch(/^ {2}work\t/);
    const showDefault = (await runCli(['profile', 'show'], dir)).stdout.split('\n');
    expect(showDefault[0]).toBe('* default');
    const showWork = (await runCli(['profile', 'show', 'work'], dir)).stdout.split('\n');
    expect(showWork[0]).toBe('  work');
    expect(showWork.join('\n')).not.toContain('active:');
  });
});
