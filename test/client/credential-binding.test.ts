// A profile's tokens and client secret go only to the installation that issued them: settings that
// name another one (a flag, a variable, a library option) are a usage error before anything is
// sent. The other installation is a real mock behind a listener that keeps every request.
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { dasvc, DasvcError, type DasvcClient } from '../../src/index.js';
import { storeSources } from '../../src/cli/commands/completion/completion-sources.js';
import type { StoredTokens } from '../../src/schemas/config-file.js';
import {
  browserEnv,
  expectNoLeaksAfterAll,
  freshConfigDir,
  loggedInBeforeAll,
  mintTokens,
  runCli,
  runCliProcess,
  startMockForCli,
} from '../helpers/cli.js';
import { copyFixtures } from '../helpers/mock-client.js';
import { otherInstallationForFile } from '../helpers/other-installation.js';

const mock = startMockForCli();
// The other installation knows the same client id with a secret of its own.
const otherFixtures = copyFixtures();
writeFileSync(join(otherFixtures, 'clients.txt'), 'demo-client:other-side-secret\n');
const other = otherInstallationForFile(() => ({ fixtures: otherFixtures }));
expectNoLeaksAfterAll();
const configDir = loggedInBeforeAll(mock, 'crm');

interface Stored {
  baseUrl: string;
  clientSecret: string;
  endpoints: Record<string, string>;
  tokens?: StoredTokens;
}

function profileIn(dir: string): Stored {
  const data = JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')) as {
    profiles: Record<string, Stored>;
  };
  return data.profiles.default!;
}

/** The stored credentials of the logged-in profile: none may reach the other installation. */
function storedCredentials(dir = configDir()): string[] {
  const profile = profileIn(dir);
  return [profile.clientSecret, profile.tokens!.accessToken!, profile.tokens!.refreshToken!].filter(
    Boolean,
  );
}

/** A copy of the logged-in config dir, for a test that changes the profile. */
function copyOfProfile(): string {
  const dir = freshConfigDir();
  cpSync(configDir(), dir, { recursive: true });
  return dir;
}

/** Nothing at all reached the other installation since `before` requests. */
function expectNothingSent(before: number): void {
  expect(other.requests.slice(before)).toEqual([]);
  expect(other.carried(storedCredentials())).toBe(false);
}

const apiOf = (base: string) => `${base}/webservice/json/{scope}`;

describe('another base URL or endpoint for a logged-in profile: exit 2, nothing sent', () => {
  it('dasvc rpc with DASVC_BASE_URL of another installation (a process: its exit code)', async () => {
    const before = other.requests.length;
    const result = await runCliProcess(['rpc', 'crm', 'contacts.list'], configDir(), {
      env: { DASVC_BASE_URL: other.url },
    });
    expect(result.code, result.stderr).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain(other.url);
    expect(result.stderr).toContain(mock.url);
    expect(result.stderr).toContain('DASVC_BASE_URL');
    for (const way of ['--profile NAME', 'dasvc login', 'DASVC_TOKEN'])
      expect(result.stderr).toContain(way);
    expectNothingSent(before);
    expect(other.heard()).toEqual({
      authorization: [],
      clientSecret: [],
      refreshToken: [],
      token: [],
    });
  });

  const cases: [string, string[], () => Record<string, string>, () => string][] = [
    [
      'rpc --base-url',
      ['rpc', 'crm', 'contacts.list', '--base-url', '<other>'],
      () => ({}),
      () => other.url,
    ],
    [
      'rpc --api-url',
      ['rpc', 'crm', 'contacts.list', '--api-url', '<api>'],
      () => ({}),
      () => apiOf(other.url),
    ],
    [
      'rpc DASVC_API_URL',
      ['rpc', 'crm', 'contacts.list'],
      () => ({ DASVC_API_URL: apiOf(other.url) }),
      () => apiOf(other.url),
    ],
    [
      'rpc --batch DASVC_BASE_URL',
      ['rpc', 'crm', '--batch', '-'],
      () => ({ DASVC_BASE_URL: other.url }),
      () => other.url,
    ],
    [
      'rpc DASVC_REFRESH_URL',
      ['rpc', 'crm', 'contacts.list'],
      () => ({ DASVC_REFRESH_URL: `${other.url}/webservice/authorize/refresh_token` }),
      () => `${other.url}/webservice/authorize/refresh_token`,
    ],
    [
      'rpc DASVC_TOKEN_URL',
      ['rpc', 'crm', 'contacts.list'],
      () => ({ DASVC_TOKEN_URL: `${other.url}/webservice/authorize` }),
      () => `${other.url}/webservice/authorize`,
    ],
    [
      'token print DASVC_BASE_URL',
      ['token', 'print'],
      () => ({ DASVC_BASE_URL: other.url }),
      () => other.url,
    ],
    [
      'token refresh --refresh-url',
      ['token', 'refresh', '--refresh-url', '<refresh>'],
      () => ({}),
      () => `${other.url}/webservice/authorize/refresh_token`,
    ],
    [
      'token refresh DASVC_REFRESH_URL',
      ['token', 'refresh'],
      () => ({ DASVC_REFRESH_URL: `${other.url}/webservice/authorize/refresh_token` }),
      () => `${other.url}/webservice/authorize/refresh_token`,
    ],
    [
      'token revoke DASVC_REVOKE_URL',
      ['token', 'revoke'],
      () => ({ DASVC_REVOKE_URL: `${other.url}/webservice/authorize/revoke` }),
      () => `${other.url}/webservice/authorize/revoke`,
    ],
    [
      'token revoke --all --base-url',
      ['token', 'revoke', '--all', '--base-url', '<other>'],
      () => ({}),
      () => other.url,
    ],
    ['logout DASVC_BASE_URL', ['logout'], () => ({ DASVC_BASE_URL: other.url }), () => other.url],
  ];
  it.each(cases)('%s', async (_name, args, env, named) => {
    const argv = args.map((arg) =>
      arg === '<other>'
        ? other.url
        : arg === '<api>'
          ? apiOf(other.url)
          : arg === '<refresh>'
            ? `${other.url}/webservice/authorize/refresh_token`
            : arg,
    );
    const before = other.requests.length;
    const tokensBefore = profileIn(configDir()).tokens;
    const result = await runCli(argv, configDir(), {
      env: env(),
      input: '[{"jsonrpc":"2.0","method":"contacts.list","id":1}]',
    });
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toContain(named());
    expect(result.stderr).toContain(mock.url);
    expectNothingSent(before);
    // The profile keeps its tokens, which still work where they were issued.
    expect(profileIn(configDir()).tokens).toEqual(tokensBefore);
  });

  it('the --json error names both URLs under one code', async () => {
    const result = await runCli(['--json', 'rpc', 'crm', 'contacts.list'], configDir(), {
      env: { DASVC_BASE_URL: other.url },
    });
    expect(result.code).toBe(2);
    const { error } = JSON.parse(result.stdout) as {
      error: { code: string; exitCode: number; message: string };
    };
    expect(error).toMatchObject({ code: 'other_installation', exitCode: 2 });
    expect(error.message).toContain(other.url);
    expect(error.message).toContain(mock.url);
    expect(result.stderr).toContain(
      "hint: to log profile default in there: dasvc login (with that installation's client secret)",
    );
  });

  it('logout --forget forgets the tokens here and sends nothing there', async () => {
    const dir = copyOfProfile();
    const before = other.requests.length;
    const result = await runCli(['logout', '--forget'], dir, {
      env: { DASVC_BASE_URL: other.url },
    });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain(other.url);
    expect(profileIn(dir).tokens).toBeUndefined();
    expectNothingSent(before);
  });

  it('token status sends nothing and shows the profile as it is', async () => {
    const before = other.requests.length;
    const result = await runCli(['token', 'status'], configDir(), {
      env: { DASVC_BASE_URL: other.url },
    });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain(`base URL:  ${mock.url}`);
    expectNothingSent(before);
  });

  it('the same installation written otherwise (trailing slash, scheme case) is no other', async () => {
    for (const base of [`${mock.url}/`, mock.url.replace('http:', 'HTTP:')]) {
      const result = await runCli(['rpc', 'crm', 'contacts.list'], configDir(), {
        env: { DASVC_BASE_URL: base },
      });
      expect(result.code, `${base}: ${result.stderr}`).toBe(0);
    }
  });
});

describe('the client secret stays too', () => {
  it('token revoke --token with the stored secret: exit 2; with the other side’s secret given: sent', async () => {
    const given = (await mintTokens(other.url, 'alice', 'crm')).access_token;
    const before = other.requests.length;
    const refused = await runCli(['token', 'revoke', '--token', given], configDir(), {
      env: { DASVC_BASE_URL: other.url },
    });
    expect(refused.code, refused.stderr).toBe(2);
    expect(refused.stderr).toContain(other.url);
    expect(refused.stderr).toContain(mock.url);
    expect(refused.stderr).toContain('DASVC_CLIENT_SECRET');
    expectNothingSent(before);

    const revoked = await runCli(['token', 'revoke', '--token', given], configDir(), {
      env: { DASVC_BASE_URL: other.url, DASVC_CLIENT_SECRET: 'other-side-secret' },
    });
    expect(revoked.code, revoked.stderr).toBe(0);
    expect(other.heard().clientSecret.slice(-1)).toEqual(['other-side-secret']);
    expect(other.carried(storedCredentials())).toBe(false);
  });

  it('check against another installation does not take the stored secret', async () => {
    const before = other.requests.length;
    const args = ['check', '--only', 'token.members', '--base-url', other.url];
    const refused = await runCli(args, configDir(), { env: browserEnv() });
    expect(refused.code, refused.stderr).toBe(2);
    expect(refused.stderr).toContain(other.url);
    expect(refused.stderr).toContain(mock.url);
    expectNothingSent(before);

    const given = await runCli(args, configDir(), {
      env: { ...browserEnv(), DASVC_CLIENT_SECRET: 'other-side-secret' },
    });
    expect(given.code, given.stderr).toBe(0);
    expect(other.carried(storedCredentials())).toBe(false);
  });

  it('a profile not logged in keeps its stored secret from another installation as well', async () => {
    // As init writes one: settings and the client secret, no tokens (a logout here would revoke
    // the tokens that the copies share).
    const dir = copyOfProfile();
    const config = JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8'));
    delete config.profiles.default.tokens;
    writeFileSync(join(dir, 'config.json'), JSON.stringify(config));
    const before = other.requests.length;
    const revoke = await runCli(['token', 'revoke', '--token', 'some-token-of-theirs'], dir, {
      env: { DASVC_BASE_URL: other.url },
    });
    expect(revoke.code, revoke.stderr).toBe(2);
    expect(revoke.stderr).toContain(other.url);
    expect(revoke.stderr).toContain(mock.url);
    // No tokens to protect: not logged in is what an rpc says (exit 3).
    const rpc = await runCli(['rpc', 'crm', 'contacts.list'], dir, {
      env: { DASVC_BASE_URL: other.url },
    });
    expect(rpc.code, rpc.stderr).toBe(3);
    expect(other.requests.slice(before)).toEqual([]);
  });
});

describe('login to another installation replaces the profile', () => {
  it('with that installation’s secret: new endpoints and tokens, and later calls go there', async () => {
    const dir = copyOfProfile();
    const old = storedCredentials(dir);
    const login = await runCli(
      ['login', '--base-url', other.url, '--client-id', 'demo-client', '--scope', 'crm'],
      dir,
      { env: { ...browserEnv(), DASVC_CLIENT_SECRET: 'other-side-secret' } },
    );
    expect(login.code, login.stderr).toBe(0);
    const profile = profileIn(dir);
    expect(profile.baseUrl).toBe(other.url);
    expect(profile.endpoints.api).toBe(apiOf(other.url));
    expect(profile.tokens!.accessToken).not.toBe(old[1]);
    const before = other.requests.length;
    const call = await runCli(['rpc', 'crm', 'contacts.list'], dir);
    expect(call.code, call.stderr).toBe(0);
    expect(other.heard(before).authorization).toEqual([`Bearer ${profile.tokens!.accessToken}`]);
    // The first installation's credentials never went there.
    expect(other.carried(old)).toBe(false);
    // And now the first installation is the other one for this profile.
    const back = await runCli(['rpc', 'crm', 'contacts.list'], dir, {
      env: { DASVC_BASE_URL: mock.url },
    });
    expect(back.code).toBe(2);
  });

  it('without one: exit 2 naming both URLs and where to give the secret; the profile is kept', async () => {
    const dir = copyOfProfile();
    const before = other.requests.length;
    const login = await runCli(['login'], dir, {
      env: { ...browserEnv(), DASVC_BASE_URL: other.url },
    });
    expect(login.code, login.stderr).toBe(2);
    expect(login.stderr).toContain(other.url);
    expect(login.stderr).toContain(mock.url);
    expect(login.stderr).toContain('--client-secret');
    expect(profileIn(dir).baseUrl).toBe(mock.url);
    expect(other.requests.slice(before)).toEqual([]);
  });
});

describe('an explicit token is the user’s to send', () => {
  it('DASVC_TOKEN with DASVC_BASE_URL: the given token goes there, nothing stored does', async () => {
    const given = (await mintTokens(other.url, 'alice', 'crm')).access_token;
    const before = other.requests.length;
    const result = await runCli(['rpc', 'crm', 'contacts.list'], configDir(), {
      env: { DASVC_BASE_URL: other.url, DASVC_TOKEN: given },
    });
    expect(result.code, result.stderr).toBe(0);
    expect(other.heard().authorization.slice(-1)).toEqual([`Bearer ${given}`]);
    expect(other.requests.length - before).toBe(1);
    expect(other.carried(storedCredentials())).toBe(false);
  });
});

describe("completion's rpc.discover", () => {
  it('a line that names another installation gets no names and starts no refill', () => {
    const dir = copyOfProfile();
    const line = { path: ['rpc'], options: new Map<string, string>(), positional: ['crm'] };
    const refills: string[][] = [];
    const sources = (env: NodeJS.ProcessEnv) =>
      storeSources({
        env: { DASVC_CONFIG_DIR: dir, ...env },
        now: Date.now,
        refill: (profile, scope) => void refills.push([profile, scope]),
      });
    const before = other.requests.length;
    expect(sources({ DASVC_BASE_URL: other.url }).methods('crm', line)).toEqual([]);
    expect(refills).toEqual([]);
    expectNothingSent(before);
    // The profile's own installation: the cache is empty, so a refill is started for it.
    expect(sources({}).methods('crm', line)).toEqual([]);
    expect(refills).toEqual([['default', 'crm']]);
  });
});

describe('the library: dasvc() behaves the same', () => {
  const client = (options: object) => dasvc({ configDir: configDir(), env: {}, ...options });

  it.each([
    ['rpc', (c: DasvcClient) => c.rpc('crm', 'contacts.list')],
    ['batch', (c: DasvcClient) => c.batch('crm', [{ method: 'contacts.list' }])],
    ['accessToken', (c: DasvcClient) => c.accessToken()],
    ['refresh', (c: DasvcClient) => c.refresh()],
    ['revoke', (c: DasvcClient) => c.revoke()],
    ['revoke all', (c: DasvcClient) => c.revoke({ all: true })],
    ['logout', (c: DasvcClient) => c.logout()],
  ])('%s with baseUrl of another installation: usage, exit 2, nothing sent', async (_n, use) => {
    const before = other.requests.length;
    const error = await use(client({ baseUrl: other.url })).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DasvcError);
    expect(error).toMatchObject({ kind: 'usage', exitCode: 2, code: 'other_installation' });
    expect((error as Error).message).toContain(other.url);
    expect((error as Error).message).toContain(mock.url);
    expectNothingSent(before);
  });

  it('endpoint options and variables too; status reports and sends nothing', async () => {
    const before = other.requests.length;
    const refresh = `${other.url}/webservice/authorize/refresh_token`;
    for (const c of [
      client({ refreshUrl: refresh }),
      client({ env: { DASVC_REFRESH_URL: refresh } }),
      client({ apiUrl: apiOf(other.url) }),
    ]) {
      const error = await c.refresh().catch((e: unknown) => e);
      expect(error).toMatchObject({ kind: 'usage', exitCode: 2 });
    }
    const status = await client({ baseUrl: other.url }).status();
    expect(status).toMatchObject({ loggedIn: true, baseUrl: mock.url });
    expectNothingSent(before);
  });

  it('a token given as an option goes where it is told', async () => {
    const given = (await mintTokens(other.url, 'alice', 'crm')).access_token;
    const result = await client({ baseUrl: other.url, token: given }).rpc('crm', 'contacts.list');
    expect(Array.isArray(result)).toBe(true);
    expect(other.carried(storedCredentials())).toBe(false);
  });
});
