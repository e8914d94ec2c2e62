import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/errors.js';
import { browserArgv, splitCommand } from '../../src/client/browser.js';
import type { Profile } from '../../src/schemas/config-file.js';
import { ResolvedSettings } from '../../src/client/resolve-settings.js';
import { sameInstallation } from '../../src/client/credential-binding.js';
import { activeProfileName } from '../../src/store/profile-store.js';

const profile = {
  baseUrl: 'http://p',
  clientId: 'from-profile',
  params: 'body' as const,
  endpoints: { token: 'http://p/custom-token' },
};

const at = (options: object, env: NodeJS.ProcessEnv, p?: Profile) =>
  ResolvedSettings.check(options, env).withProfile(p);

describe('settings resolution (SPEC §2: flag > env > profile > prompt > error)', () => {
  it('prefers the flag, then the env, then the profile', () => {
    expect(at({ clientId: 'f' }, { DASVC_CLIENT_ID: 'e' }, profile).pick('clientId')).toEqual({
      value: 'f',
      source: 'option',
    });
    expect(at({}, { DASVC_CLIENT_ID: 'e' }, profile).pick('clientId')).toEqual({
      value: 'e',
      source: 'env',
    });
    expect(at({}, {}, profile).pick('clientId')).toEqual({
      value: 'from-profile',
      source: 'profile',
    });
    expect(at({}, { DASVC_CLIENT_ID: '' }).pick('clientId')).toBeUndefined();
  });
  it('asks only when a prompter is given, and names flag and env when missing', async () => {
    await expect(at({}, {}).ask('baseUrl', undefined)).rejects.toThrow(
      'missing base URL: pass --base-url or set DASVC_BASE_URL (option baseUrl)',
    );
    await expect(at({}, {}).ask('baseUrl', undefined)).rejects.toBeInstanceOf(UsageError);
    const prompter = {
      input: async () => 'http://asked',
      select: async <T extends string>(_m: string, c: readonly T[]) => c[0]!,
    };
    await expect(at({}, {}).ask('baseUrl', prompter)).resolves.toBe('http://asked');
  });
  it('resolves the parameter placement with query as default', () => {
    expect(at({}, {}).placement()).toBe('query');
    expect(at({}, {}, profile).placement()).toBe('body');
    expect(at({}, { DASVC_PARAMS: 'query' }, profile).placement()).toBe('query');
    expect(() => at({ params: 'header' }, {})).toThrow(UsageError);
  });
  it('resolves endpoints: override > stored (same base only) > default', () => {
    const same = at({ baseUrl: 'http://p/' }, { DASVC_REVOKE_URL: 'http://gw/revoke' }, profile);
    expect(same.endpoints().token).toBe('http://p/custom-token');
    expect(same.endpoints().revoke).toBe('http://gw/revoke');
    expect(same.endpoints().refresh).toBe('http://p/webservice/authorize/refresh_token');
    const other = at({ baseUrl: 'http://q' }, {}, profile);
    expect(other.endpoints().token).toBe('http://q/webservice/authorize');
    expect(at({}, {}).endpoints()).toEqual({});
  });
  it('picks the profile: --profile > DASVC_PROFILE > active > default', () => {
    expect(at({ profile: 'a' }, { DASVC_PROFILE: 'b' }).value('profile')).toBe('a');
    expect(at({}, { DASVC_PROFILE: 'b' }).value('profile')).toBe('b');
    expect(activeProfileName(undefined, {}, { activeProfile: 'c' })).toBe('c');
    expect(activeProfileName(undefined, {}, {})).toBe('default');
  });
});

describe('the settings table (SPEC §2): every bad value is refused before any work, with one message', () => {
  const cases: [string, object, NodeJS.ProcessEnv, RegExp][] = [
    [
      'params flag',
      { params: 'bogus' },
      {},
      /--params, DASVC_PARAMS, option params\) must be "query" or "body"/,
    ],
    ['params variable', {}, { DASVC_PARAMS: 'bogus' }, /--params, DASVC_PARAMS/],
    [
      'base URL',
      { baseUrl: 'ftp://x' },
      {},
      /--base-url, DASVC_BASE_URL, option baseUrl\) must be http or https/,
    ],
    [
      'base URL variable',
      {},
      { DASVC_BASE_URL: 'not a url' },
      /--base-url, DASVC_BASE_URL.*is not a URL/,
    ],
    [
      'API template',
      { apiUrl: 'http://h/api' },
      {},
      /--api-url, DASVC_API_URL, option apiUrl\) must contain \{scope\}/,
    ],
    [
      'endpoint',
      {},
      { DASVC_TOKEN_URL: 'ftp://h/t' },
      /--token-url, DASVC_TOKEN_URL.*must be http or https/,
    ],
    ['profile', { profile: '../x' }, {}, /--profile, DASVC_PROFILE.*not a usable profile name/],
    ['non-string option', { clientId: 7 }, {}, /option clientId\) must be a string/],
  ];
  it.each(cases)('%s', (_name, options, env, message) => {
    const error = (() => {
      try {
        ResolvedSettings.check(options, env);
      } catch (e) {
        return e;
      }
      return undefined;
    })();
    expect(error).toBeInstanceOf(UsageError);
    expect(error).toMatchObject({ kind: 'usage', exitCode: 2, code: 'bad_setting' });
    expect((error as Error).message).toMatch(message);
  });
  it('checks a stored value when it is used, with the same message', () => {
    const settings = at({}, {}, { baseUrl: 'ftp://stored' });
    expect(() => settings.value('baseUrl')).toThrow(/option baseUrl\) must be http or https/);
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

describe('credential binding: the installation a profile belongs to', () => {
  const stored: Profile = {
    baseUrl: 'https://das.example/base',
    clientId: 'stored-client',
    clientSecret: 'stored-secret',
    endpoints: { token: 'https://das.example/base/custom-token' },
  };

  it('reads URLs written otherwise as the same installation', () => {
    for (const [a, b] of [
      ['https://das.example/base', 'HTTPS://DAS.Example:443/base/'],
      ['http://das.example', 'http://das.example:80/'],
      ['http://h/webservice/json/{scope}', 'http://H:80/webservice/json/{scope}/'],
      ['https://{scope}.das.example/api', 'https://{scope}.DAS.example/api'],
    ])
      expect(sameInstallation(a!, b!), `${a} ${b}`).toBe(true);
    for (const [a, b] of [
      ['https://das.example', 'http://das.example'],
      ['https://das.example', 'https://das.example:8443'],
      ['https://das.example/base', 'https://das.example/other'],
      ['https://das.example/base', 'https://das.example/Base'],
      ['https://das.example', 'https://das.example.evil.test'],
      ['https://das.example', 'https://das.example@evil.test'],
      ['https://das.example', 'not a url'],
    ])
      expect(sameInstallation(a!, b!), `${a} ${b}`).toBe(false);
  });

  it('names the first base URL or endpoint given that is not the stored one', () => {
    expect(at({ baseUrl: 'https://DAS.example/base/' }, {}, stored).foreignUrl()).toBeUndefined();
    expect(
      at({}, { DASVC_TOKEN_URL: 'https://das.example/base/custom-token' }, stored).foreignUrl(),
    ).toBeUndefined();
    // Not stored, but what the stored base URL gives.
    expect(
      at(
        { revokeUrl: 'https://das.example/base/webservice/authorize/revoke' },
        {},
        stored,
      ).foreignUrl(),
    ).toBeUndefined();
    expect(at({}, { DASVC_BASE_URL: 'https://other.example' }, stored).foreignUrl()).toMatchObject({
      spec: { key: 'baseUrl' },
      given: { value: 'https://other.example', source: 'env' },
      stored: 'https://das.example/base',
    });
    // The same base URL with the default token endpoint: the profile's is the custom one.
    expect(
      at({ tokenUrl: 'https://das.example/base/webservice/authorize' }, {}, stored).foreignUrl(),
    ).toMatchObject({ spec: { key: 'tokenUrl' }, stored: 'https://das.example/base/custom-token' });
    // A profile that stored no base URL has none to match.
    expect(
      at({ baseUrl: 'https://das.example/base' }, {}, { endpoints: stored.endpoints }).foreignUrl(),
    ).toMatchObject({ spec: { key: 'baseUrl' }, stored: undefined });
    expect(at({ baseUrl: 'https://other.example' }, {}).foreignUrl()).toBeUndefined();
  });

  it('withholds the stored client secret from another installation, naming both', async () => {
    const moved = ResolvedSettings.check({ baseUrl: 'https://other.example' }, {}).withProfile(
      stored,
      'work',
    );
    expect(moved.value('clientSecret')).toBeUndefined();
    expect(() => moved.client()).toThrow(
      /base URL https:\/\/other\.example \(--base-url \/ option baseUrl\) is not the one stored with profile work \(https:\/\/das\.example\/base\)/,
    );
    await expect(moved.ask('clientSecret', undefined)).rejects.toMatchObject({
      code: 'other_installation',
      exitCode: 2,
    });
    const asked: string[] = [];
    const prompter = {
      input: async (message: string) => (asked.push(message), 'typed-secret'),
      select: async <T extends string>(_m: string, c: readonly T[]) => c[0]!,
    };
    await expect(moved.ask('clientSecret', prompter)).resolves.toBe('typed-secret');
    expect(asked).toEqual(['Client secret for https://other.example:']);
    const given = ResolvedSettings.check(
      { baseUrl: 'https://other.example', clientSecret: 'given' },
      {},
    ).withProfile(stored);
    expect(given.value('clientSecret')).toBe('given');
    expect(at({}, {}, stored).value('clientSecret')).toBe('stored-secret');
  });

  it('never shows a password of a URL it names', () => {
    // A URL given with one is refused, the password masked in the refusal.
    expect(() => at({ baseUrl: 'https://user:pa55word@other.example' }, {}, stored)).toThrow(
      expect.objectContaining({
        code: 'bad_setting',
        message: expect.stringMatching(
          /must not carry a user name or password.*user:\[redacted\]@/,
        ),
      }),
    );
    // A profile an earlier version stored with one: refused as it is read, never shown.
    const storedWithPassword = at(
      { baseUrl: 'https://other.example' },
      {},
      { ...stored, baseUrl: 'https://user:pa55word@das.example' },
    );
    let error: unknown;
    try {
      storedWithPassword.otherInstallation('tokens');
    } catch (thrown) {
      error = thrown;
    }
    expect(error).toBeInstanceOf(UsageError);
    expect((error as Error).message).toContain('user:[redacted]@das.example');
    expect((error as Error).message).not.toContain('pa55word');
  });
});
