// SPEC §2 / §9: where the config file is, always as an absolute path, since the OS credential
// store's entries are keyed by it.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { configDir, configFile } from '../../src/store/config-path.js';
import { ProfileStore } from '../../src/store/profile-store.js';

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

  it('follows XDG_CONFIG_HOME, else ~/.config, on Linux', () => {
    expect(configDir({ XDG_CONFIG_HOME: '/x' }, 'linux')).toBe('/x/dasvc-nodejs');
    expect(configDir({}, 'linux')).toMatch(/\/\.config\/dasvc-nodejs$/);
    expect(configDir({ XDG_CONFIG_HOME: '' }, 'linux')).toBe(configDir({}, 'linux'));
  });
});
