// SPEC §1 / §2: the config file's one writer is conf: the file replaced whole (a reader sees the
// old file or the new one), mode 0600, tab-indented JSON; what a killed writer left goes.
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openConfigWriter } from '../../src/store/config-writer.js';
import { scratchDir } from '../helpers/scratch.js';

describe('openConfigWriter', () => {
  it('replaces the file whole by a rename, mode 0600, tab-indented, no temp file left', async () => {
    const dir = scratchDir('dasvc-writer-');
    const file = join(dir, 'config.json');
    writeFileSync(file, '{"old":true}', { mode: 0o644 });
    const before = statSync(file).ino;
    const writer = await openConfigWriter(file);
    writer.write({ profiles: { 'a.b': { clientId: 'c' } } });
    expect(readFileSync(file, 'utf8')).toBe(
      '{\n\t"profiles": {\n\t\t"a.b": {\n\t\t\t"clientId": "c"\n\t\t}\n\t}\n}',
    );
    expect(statSync(file).mode & 0o777).toBe(0o600);
    // A new file renamed over the old one, not the old one rewritten in place.
    expect(statSync(file).ino).not.toBe(before);
    writer.write({ activeProfile: 'x' });
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ activeProfile: 'x' });
    expect(readdirSync(dir)).toEqual(['config.json']);
  });

  it('leaves a file it rewrote in place 0600 too (conf writes so under SNAP)', async () => {
    const dir = scratchDir('dasvc-writer-');
    const file = join(dir, 'config.json');
    writeFileSync(file, '{}', { mode: 0o644 });
    const writer = await openConfigWriter(file);
    const snap = process.env.SNAP;
    process.env.SNAP = '1';
    try {
      writer.write({ activeProfile: 'x' });
    } finally {
      if (snap === undefined) delete process.env.SNAP;
      else process.env.SNAP = snap;
    }
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ activeProfile: 'x' });
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });

  it('makes a missing file 0600', async () => {
    const dir = scratchDir('dasvc-writer-');
    const file = join(dir, 'config.json');
    (await openConfigWriter(file)).write({});
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });

  it("removes the temp files a killed writer left behind (conf's names), and nothing else", async () => {
    const dir = scratchDir('dasvc-writer-');
    const file = join(dir, 'config.json');
    const kept = ['config.json.bak', 'config.json.tmp-x', 'other.json.tmp-1732838400a1b2c3'];
    for (const name of [
      'config.json.tmp-1732838400a1b2c3',
      'config.json.tmp-0000000001000000',
      ...kept,
    ])
      writeFileSync(join(dir, name), '{"accessToken":"left"}');
    await openConfigWriter(file);
    expect(readdirSync(dir).sort()).toEqual(kept.sort());
  });
});
