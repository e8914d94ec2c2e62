// Files a command reads whole, synchronously, as it starts (a quirks file, a state file, a
// fixtures folder's files, `types --from` and `--check`): a FIFO or a device in place of one is a
// usage error at once. Read as it was, /dev/zero filled memory by gigabytes and a FIFO held the
// process in open(), deaf to Ctrl-C and SIGTERM.
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createMockApp, startMockServer } from '../../src/mock/index.js';
import { freshConfigDir, runCli } from '../helpers/cli.js';
import { FIXTURES } from '../helpers/mock-client.js';
import { scratchDir } from '../helpers/scratch.js';

const usage = (message: RegExp) =>
  expect.objectContaining({ kind: 'usage', exitCode: 2, message: expect.stringMatching(message) });

/** A FIFO nobody writes to: opening it to read would wait for a writer. */
function fifo(): string {
  const path = join(scratchDir('dasvc-fifo-'), 'fifo');
  execFileSync('mkfifo', [path]);
  return path;
}

describe('a FIFO or a device where a whole file is read', () => {
  it.each(['/dev/zero', 'fifo'])('the mock refuses %s as its quirks or state file', (kind) => {
    const path = kind === 'fifo' ? fifo() : kind;
    expect(() => createMockApp({ quirks: path })).toThrow(
      usage(/^cannot read the quirks file .*: not a regular file$/),
    );
    expect(() => createMockApp({ stateFile: path })).toThrow(
      usage(/^cannot read state file .*: not a regular file$/),
    );
  });

  it("the mock refuses a fixtures folder with a FIFO in a file's place", () => {
    const dir = scratchDir('dasvc-fixtures-');
    cpSync(FIXTURES, dir, { recursive: true });
    rmSync(join(dir, 'clients.txt'));
    execFileSync('mkfifo', [join(dir, 'clients.txt')]);
    expect(() => createMockApp({ fixtures: dir })).toThrow(
      usage(/clients\.txt: cannot read it \(not a regular file\)/),
    );
  });

  it('a recording replaces a FIFO where it writes a schema beside its documents', async () => {
    const dir = scratchDir('dasvc-record-');
    mkdirSync(join(dir, 'schema'));
    execFileSync('mkfifo', [join(dir, 'schema', 'users.schema.json')]);
    const proxy = await startMockServer({ port: 0, proxy: 'http://127.0.0.1:9', record: dir });
    await proxy.close();
    expect(statSync(join(dir, 'schema', 'users.schema.json')).isFile()).toBe(true);
  });

  it('types refuses one as --from and as --check', async () => {
    const dir = freshConfigDir();
    for (const [args, said] of [
      [['--from', fifo()], /cannot read it \(not a regular file\)/],
      [['--from', '/dev/zero'], /cannot read it \(not a regular file\)/],
      [['--from', FIXTURES, '--check', fifo()], /--check: cannot read .*: not a regular file/],
      [['--from', FIXTURES, '--check', '/dev/zero'], /--check: cannot read .*: not a regular file/],
    ] as const) {
      const result = await runCli(['types', ...args], dir);
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stderr).toMatch(said);
    }
  });
});
