// SPEC §2 / §9: where the config file is, always as an absolute path, since the OS credential
// store's entries are keyed by it.
import { homedir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { configDir, configFile } from '../../src/store/config-path.js';
import { ProfileStore } from '../../src/store/profile-store.js';
import { scratchDir } from '../helpers/scratch.js';

describe('configDir / configFile', () => {
  it('takes DASVC_CONFIG_DIR from the working directory when relative', () => {
    expect(configDir({ DASVC_CONFIG_DIR: 'cfg' })).toBe(join(process.cwd(), 'cfg'));
    expect(configFile({ DASVC_CONFIG_DIR: '/abs/cfg/' })).toBe('/abs/cfg/config.json');
  });

  it('keys the credential store by the absolute path: one relative name, two cwds, two entries', () => {
    // The working directory is given rather than changed: the worker's is shared by its files.
    const inTmp = new ProfileStore(configFile({ DASVC_CONFIG_DIR: 'cfg' }, '/tmp')).keychain
      .service;
    const inRoot = new ProfileStore(configFile({ DASVC_CONFIG_DIR: 'cfg' }, '/')).keychain.service;
    expect(inTmp).toBe('dasvc:/tmp/cfg/config.json');
    expect(inRoot).toBe('dasvc:/cfg/config.json');
  });

  it("finds the OS folder as conf does: the process's XDG_CONFIG_HOME, else ~/.config", async () => {
    const before = process.env.XDG_CONFIG_HOME;
    const home = scratchDir('dasvc-xdg-');
    try {
      process.env.XDG_CONFIG_HOME = home;
      // The environment given names no config folder: the OS one is the process's.
      expect(configFile({})).toBe(join(home, 'dasvc-nodejs', 'config.json'));
      // conf left to find its file itself (no cwd) finds that same one.
      const { default: Conf } = await import('conf');
      expect(new Conf({ projectName: 'dasvc' }).path).toBe(configFile({}));
      process.env.XDG_CONFIG_HOME = '';
      expect(configDir({})).toBe(join(homedir(), '.config', 'dasvc-nodejs'));
    } finally {
      if (before === undefined) delete process.env.XDG_CONFIG_HOME;
      else process.env.XDG_CONFIG_HOME = before;
    }
  });
});
