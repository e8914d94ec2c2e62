import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { prepareReplace } from '../../src/store/replace-file.js';
import { scratchDir } from '../helpers/scratch.js';

const replaceFile = (file: string, text: string) => prepareReplace(file).commit(text);

describe('prepareReplace (SPEC §2: the config file, atomic and 0600)', () => {
  it('replaces the file whole, mode 0600, and leaves no temp file', () => {
    const dir = scratchDir('dasvc-replace-');
    const file = join(dir, 'config.json');
    writeFileSync(file, '{"old":true}', { mode: 0o644 });
    const before = statSync(file).ino;
    replaceFile(file, '{"new":true}');
    expect(readFileSync(file, 'utf8')).toBe('{"new":true}');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    // A new file renamed over the old one, not the old one rewritten in place.
    expect(statSync(file).ino).not.toBe(before);
    expect(readdirSync(dir)).toEqual(['config.json']);
  });

  it('prepared: the temp file waits beside the file, 0600, until commit or abandon', () => {
    const dir = scratchDir('dasvc-replace-');
    const file = join(dir, 'config.json');
    writeFileSync(file, 'old');
    const prepared = prepareReplace(file);
    expect(readdirSync(dir).sort()).toEqual(['config.json', `config.json.${process.pid}.tmp`]);
    expect(statSync(join(dir, `config.json.${process.pid}.tmp`)).mode & 0o777).toBe(0o600);
    expect(readFileSync(file, 'utf8')).toBe('old');
    prepared.abandon();
    expect(readdirSync(dir)).toEqual(['config.json']);
    expect(readFileSync(file, 'utf8')).toBe('old');
    const again = prepareReplace(file);
    again.commit('new');
    again.abandon();
    expect(readFileSync(file, 'utf8')).toBe('new');
    expect(readdirSync(dir)).toEqual(['config.json']);
  });

  it('removes the temp files a killed writer left behind, and nothing else', () => {
    const dir = scratchDir('dasvc-replace-');
    const file = join(dir, 'config.json');
    for (const name of [
      'config.json.4242.tmp',
      'config.json.1.tmp',
      'config.json.bak.tmp',
      'x.1.tmp',
    ])
      writeFileSync(join(dir, name), '');
    replaceFile(file, '{}');
    expect(readdirSync(dir).sort()).toEqual(['config.json', 'config.json.bak.tmp', 'x.1.tmp']);
  });
});
