import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/errors.js';
import { browserArgv, splitCommand } from '../../src/cli/browser.js';
import {
  pickSetting,
  requireSetting,
  resolveEndpoints,
  resolvePlacement,
  SETTINGS,
} from '../../src/cli/settings.js';
import { activeProfileName } from '../../src/store/profile-store.js';

const profile = {
  baseUrl: 'http://p',
  clientId: 'from-profile',
  params: 'body' as const,
  endpoints: { token: 'http://p/custom-token' },
};

describe('settings resolution (SPEC §2: flag > env > profile > prompt > error)', () => {
  it('prefers the flag, then the env, then the profile', () => {
    expect(
      pickSetting(SETTINGS.clientId, { clientId: 'f' }, { DASVC_CLIENT_ID: 'e' }, profile),
    ).toEqual({ value: 'f', source: 'flag' });
    expect(pickSetting(SETTINGS.clientId, {}, { DASVC_CLIENT_ID: 'e' }, profile)).toEqual({
      value: 'e',
      source: 'env',
    });
    expect(pickSetting(SETTINGS.clientId, {}, {}, profile)).toEqual({
      value: 'from-profile',
      source: 'profile',
    });
    expect(pickSetting(SETTINGS.clientId, {}, { DASVC_CLIENT_ID: '' }, undefined)).toBeUndefined();
  });
  it('asks only when a prompter is given, and names flag and env when missing', async () => {
    await expect(requireSetting(SETTINGS.baseUrl, {}, {}, undefined, undefined)).rejects.toThrow(
      'missing base URL: pass --base-url or set DASVC_BASE_URL',
    );
    await expect(
      requireSetting(SETTINGS.baseUrl, {}, {}, undefined, undefined),
    ).rejects.toBeInstanceOf(UsageError);
    const prompter = {
      input: async () => 'http://asked',
      select: async <T extends string>(_m: string, c: readonly T[]) => c[0]!,
    };
    await expect(requireSetting(SETTINGS.baseUrl, {}, {}, undefined, prompter)).resolves.toBe(
      'http://asked',
    );
  });
  it('resolves the parameter placement with query as default', () => {
    expect(resolvePlacement({}, {}, undefined)).toBe('query');
    expect(resolvePlacement({}, {}, profile)).toBe('body');
    expect(resolvePlacement({}, { DASVC_PARAMS: 'query' }, profile)).toBe('query');
    expect(() => resolvePlacement({ params: 'header' }, {}, undefined)).toThrow(UsageError);
  });
  it('resolves endpoints: override > stored (same base only) > default', () => {
    const same = resolveEndpoints(
      'http://p/',
      {},
      { DASVC_REVOKE_URL: 'http://gw/revoke' },
      profile,
    );
    expect(same.token).toBe('http://p/custom-token');
    expect(same.revoke).toBe('http://gw/revoke');
    expect(same.refresh).toBe('http://p/webservice/authorize/refresh_token');
    const other = resolveEndpoints('http://q', {}, {}, profile);
    expect(other.token).toBe('http://q/webservice/authorize');
    expect(resolveEndpoints(undefined, {}, {}, undefined)).toEqual({});
  });
  it('picks the profile: --profile > DASVC_PROFILE > active > default', () => {
    expect(activeProfileName('a', { DASVC_PROFILE: 'b' }, { activeProfile: 'c' })).toBe('a');
    expect(activeProfileName(undefined, { DASVC_PROFILE: 'b' }, { activeProfile: 'c' })).toBe('b');
    expect(activeProfileName(undefined, {}, { activeProfile: 'c' })).toBe('c');
    expect(activeProfileName(undefined, {}, {})).toBe('default');
  });
});

describe('browser command (DASVC_BROWSER / BROWSER)', () => {
  it('splits like a shell and appends the URL, or fills %s', () => {
    expect(splitCommand(`node "/tmp/my dir/b.mjs" --x 'y z'`)).toEqual([
      'node',
      '/tmp/my dir/b.mjs',
      '--x',
      'y z',
    ]);
    expect(browserArgv('firefox --new-window', 'http://u')).toEqual([
      'firefox',
      '--new-window',
      'http://u',
    ]);
    expect(browserArgv('open -a Safari %s', 'http://u')).toEqual([
      'open',
      '-a',
      'Safari',
      'http://u',
    ]);
  });
});
