import { afterAll, describe, expect, it } from 'vitest';
import { run as loginRun } from '../../src/cli/commands/login/run.js';
import { run as logoutRun } from '../../src/cli/commands/logout/run.js';
import { run as rpcRun } from '../../src/cli/commands/rpc/run.js';
import { run as printRun } from '../../src/cli/commands/token/print.js';
import { run as refreshRun } from '../../src/cli/commands/token/refresh.js';
import { run as revokeRun } from '../../src/cli/commands/token/revoke.js';
import { run as statusRun } from '../../src/cli/commands/token/status.js';
import { AuthError, NetworkError, ServiceError, UsageError } from '../../src/errors.js';
import { dasvc } from '../../src/index.js';
import { createMockApp } from '../../src/mock/index.js';
import {
  cleanup,
  failure,
  fakeTerminal,
  type FakeOptions,
  type FakeTerminal,
} from '../helpers/cli-in-process.js';
import { appTransport, approvingBrowser } from '../helpers/in-process.js';

const app = createMockApp({ autoApprove: 'alice', log: () => undefined });
const send = appTransport(app);
const terminals: FakeTerminal[] = [];
afterAll(async () => {
  for (const terminal of terminals) cleanup(terminal);
  await app.close();
});

function terminal(options: Partial<FakeOptions> = {}): FakeTerminal {
  const made = fakeTerminal({ send, openBrowser: approvingBrowser(app), ...options });
  terminals.push(made);
  return made;
}

const LOGIN = {
  baseUrl: 'http://das.test',
  clientId: 'demo-client',
  clientSecret: 'demo-secret',
  scope: 'crm wiki',
};

/** Every command that reads the settings of SPEC §2, run in-process with its typed options. */
const COMMANDS: [string, (options: object, t: FakeTerminal) => Promise<void>][] = [
  ['login', (o, t) => loginRun({ ...o, browser: true }, t.deps)],
  ['logout', (o, t) => logoutRun(o, t.deps)],
  ['token status', (o, t) => statusRun(o, t.deps)],
  ['token print', (o, t) => printRun(o, t.deps)],
  ['token refresh', (o, t) => refreshRun(o, t.deps)],
  ['token revoke', (o, t) => revokeRun(o, t.deps)],
  [
    'rpc',
    (o, t) => rpcRun({ ...o, scope: 'crm', method: 'contacts.list', paramItems: [] }, t.deps),
  ],
];

const BAD: [string, object, NodeJS.ProcessEnv][] = [
  ['--params bogus', { params: 'bogus' }, {}],
  ['DASVC_PARAMS=bogus', {}, { DASVC_PARAMS: 'bogus' }],
  ['--base-url ftp://x', { baseUrl: 'ftp://x' }, {}],
  ['DASVC_BASE_URL=ftp://x', {}, { DASVC_BASE_URL: 'ftp://x' }],
  ['--api-url without {scope}', { apiUrl: 'http://das.test/api' }, {}],
  ['DASVC_REVOKE_URL=nope', {}, { DASVC_REVOKE_URL: 'nope' }],
];

describe('one bad setting: one exit code and one message, in every command and in the library', () => {
  it.each(BAD)('%s', async (_name, options, env) => {
    const library = failure(Promise.resolve().then(() => dasvc({ ...options, env })));
    const expected = await library;
    expect(expected).toBeInstanceOf(UsageError);
    expect(expected).toMatchObject({ kind: 'usage', exitCode: 2, code: 'bad_setting' });
    for (const [command, run] of COMMANDS) {
      // Not logged in: the bad setting is still what is reported.
      const t = terminal();
      const error = await failure(
        (async () => run(options, terminal({ env, configDir: t.configDir })))(),
      );
      expect(error, command).toBeInstanceOf(UsageError);
      expect((error as Error).message, command).toBe((expected as Error).message);
      expect(t.stdout.text, command).toBe('');
    }
  });
});

describe('the library and the CLI share one profile (SPEC §1)', () => {
  it('dasvc() does what dasvc rpc does, refreshes after a 401, and the CLI goes on with its pair', async () => {
    const t = terminal();
    await loginRun({ ...LOGIN, browser: true }, t.deps);
    const client = dasvc({ env: { DASVC_CONFIG_DIR: t.configDir }, send });
    const viaLibrary = await client.rpc<{ id: number }[]>('crm', 'contacts.list');
    await rpcRun({ scope: 'crm', method: 'contacts.list', paramItems: [] }, t.deps);
    expect(JSON.parse(t.stdout.text.trim().split('\n').pop()!)).toEqual(viaLibrary);

    // The service stops accepting the stored access token (as when another party revoked it).
    const before = t.store.profile('default')!.tokens!;
    const revoked = await app(
      new Request(
        `http://das.test/webservice/authorize/revoke?token=${before.accessToken}&token_type_hint=access_token&client_id=demo-client&client_secret=demo-secret`,
        { method: 'POST' },
      ),
    );
    expect(revoked.status).toBe(200);
    expect(await client.rpc('crm', 'contacts.list')).toEqual(viaLibrary);
    const after = t.store.profile('default')!.tokens!;
    expect(after.accessToken).not.toBe(before.accessToken);
    expect(after.refreshToken).not.toBe(before.refreshToken);

    // The CLI uses the pair the library stored: no refresh needed, the token works.
    const printed = terminal({ configDir: t.configDir });
    await printRun({}, printed.deps);
    expect(printed.stdout.text.trim()).toBe(after.accessToken);
    const status = terminal({ configDir: t.configDir, json: true });
    await statusRun({}, status.deps);
    expect(JSON.parse(status.stdout.text)).toMatchObject({ profile: 'default', revoked: false });
    expect(t.store.profile('default')!.tokens).toEqual(after);
    // The library says where the pair lives, as `token status` does (SPEC §9).
    const { secrets } = t.store.read().profiles!.default!;
    expect(await client.status()).toMatchObject({
      storage: secrets === 'keychain' ? secrets : 'file',
    });
  });

  // Regression: a refresh that failed on the way after a 401 was reported as the 401 (exit 3,
  // "log in again"), though the session was fine and the cause a 5xx or the network.
  it('after a 401, a refresh that fails on the way is that failure (5xx: 1, network: 4), refused: 3', async () => {
    const t = terminal();
    await loginRun({ ...LOGIN, browser: true }, t.deps);
    const client = dasvc({ env: { DASVC_CONFIG_DIR: t.configDir }, send });
    const mockCall = (path: string, init: RequestInit) =>
      app(new Request(`http://das.test${path}`, init));
    const revokeAccess = async () => {
      const { accessToken } = t.store.profile('default')!.tokens!;
      const revoked = await mockCall(
        `/webservice/authorize/revoke?token=${accessToken}&token_type_hint=access_token&client_id=demo-client&client_secret=demo-secret`,
        { method: 'POST' },
      );
      expect(revoked.status).toBe(200);
    };
    const refreshFault = (fault: object) =>
      mockCall('/_mock/faults', {
        method: 'POST',
        body: JSON.stringify({ ...fault, count: 2, path: '/webservice/authorize/refresh_token' }),
      });
    const cases: [object, new (...a: never[]) => Error, number][] = [
      [{ kind: 'error', status: 503 }, ServiceError, 1],
      [{ kind: 'drop' }, NetworkError, 4],
      // A refusal other than invalid_grant (here a 400 server_error) is the service's word: the
      // 401 explains it (log in again).
      [{ kind: 'error', status: 400 }, AuthError, 3],
    ];
    for (const [fault, Kind, exitCode] of cases) {
      await revokeAccess();
      expect((await refreshFault(fault)).status).toBe(200);
      const fromLibrary = await failure(client.rpc('crm', 'contacts.list'));
      expect(fromLibrary, JSON.stringify(fault)).toBeInstanceOf(Kind);
      expect(fromLibrary).toMatchObject({ exitCode });
      const cli = terminal({ configDir: t.configDir });
      const fromCli = await failure(
        rpcRun({ scope: 'crm', method: 'contacts.list', paramItems: [] }, cli.deps),
      );
      expect(fromCli, JSON.stringify(fault)).toBeInstanceOf(Kind);
      // The session is fine: with the service back, the next call refreshes and succeeds.
      expect(await client.rpc('crm', 'contacts.list')).toHaveLength(2);
    }
    // A refresh the service refuses leaves the 401 to explain: exit 3.
    await revokeAccess();
    const { refreshToken } = t.store.profile('default')!.tokens!;
    await mockCall(
      `/webservice/authorize/revoke?token=${refreshToken}&token_type_hint=refresh_token&client_id=demo-client&client_secret=demo-secret`,
      { method: 'POST' },
    );
    const refused = await failure(client.rpc('crm', 'contacts.list'));
    expect(refused).toBeInstanceOf(AuthError);
    expect(refused).toMatchObject({ exitCode: 3, status: 401 });
  });

  // A refresh due only by the margin that fails on the way (the service down for a moment) no
  // longer fails a call that the still-valid access token can make; a forced one still fails.
  it('a due refresh that fails on the way: the call goes on with the valid token, and says so', async () => {
    const t = terminal();
    await loginRun({ ...LOGIN, browser: true }, t.deps);
    const before = t.store.profile('default')!.tokens!;
    // Ten seconds before expiry: inside the margin (6 min of 1 h), the token still good.
    const late = () => before.expiresAt! - 10_000;
    const fault = () =>
      app(
        new Request('http://das.test/_mock/faults', {
          method: 'POST',
          body: JSON.stringify({
            kind: 'error',
            status: 503,
            count: 1,
            path: '/webservice/authorize/refresh_token',
          }),
        }),
      );
    await fault();
    const due = terminal({ configDir: t.configDir, now: late });
    await rpcRun({ scope: 'crm', method: 'contacts.list', paramItems: [] }, due.deps);
    expect(JSON.parse(due.stdout.text)).toHaveLength(2);
    expect(due.stderr.text).toMatch(
      /could not refresh the access token of profile default \(.*HTTP 503.*\); using it as it is \(10 s left\)/,
    );
    expect(t.store.profile('default')!.tokens).toEqual(before);
    await fault();
    const forced = terminal({ configDir: t.configDir, now: late });
    expect(await failure(refreshRun({}, forced.deps))).toBeInstanceOf(ServiceError);
  });

  // Regression: a batch refused as a whole (one error object, not an array) was a TypeError.
  it('batch: a batch refused as a whole is its JSON-RPC error (exit 1)', async () => {
    const refused =
      '{"jsonrpc":"2.0","error":{"code":-32603,"message":"Internal error"},"id":null}';
    for (const status of [200, 500]) {
      const client = dasvc({
        baseUrl: 'http://das.test',
        token: 'a-token',
        store: 'memory',
        env: {},
        send: async () => ({
          status,
          headers: { 'content-type': 'application/json' },
          text: refused,
        }),
      });
      const error = await failure(client.batch('crm', [{ method: 'contacts.list' }]));
      expect(error, String(status)).toMatchObject({
        kind: 'service',
        exitCode: 1,
        rpc: { code: -32603, message: 'Internal error' },
      });
    }
  });

  // Regression: the library said nothing when the tokens went to the config file for want of an
  // OS credential store (SPEC §9: the login says so; §1: through `tell`).
  it('login tells a warning when the OS credential store is missing, and opens any browser function', async () => {
    const t = terminal();
    const told: [string, string | undefined][] = [];
    let opened = 0;
    // A service that shows its consent page: the login needs the browser function.
    const consenting = createMockApp({ log: () => undefined });
    const saved = process.env.DBUS_SESSION_BUS_ADDRESS;
    delete process.env.DBUS_SESSION_BUS_ADDRESS;
    try {
      const client = dasvc({
        ...LOGIN,
        env: { DASVC_CONFIG_DIR: t.configDir },
        send: appTransport(consenting),
        tell: (message, level) => told.push([message, level]),
      });
      const approve = approvingBrowser(consenting);
      // A plain-JS embedder's browser function that returns nothing.
      const openBrowser = ((url: string) => void ((opened += 1), approve(url))) as unknown as (
        url: string,
      ) => Promise<void>;
      await client.login({ openBrowser });
    } finally {
      if (saved !== undefined) process.env.DBUS_SESSION_BUS_ADDRESS = saved;
      await consenting.close();
    }
    expect(opened).toBe(1);
    const { secrets } = t.store.read().profiles!.default!;
    // Linux without a D-Bus session has no Secret Service; elsewhere the OS store may answer.
    if (process.platform === 'linux') expect(secrets).toBe('file');
    if (secrets === 'file') {
      expect(told).toContainEqual([
        expect.stringMatching(
          /^The OS credential store is not available \(.*\): the tokens and client secret of profile default are kept in .*config\.json \(mode 0600\)\.$/,
        ),
        'warning',
      ]);
    }
  });

  // Regression: a config dir that could not be written was found out after the code exchange,
  // leaving a live grant at the service and the tokens lost.
  it.runIf(process.platform === 'linux')(
    'login into a config dir that cannot be written: a usage error before the browser opens',
    async () => {
      let opened = 0;
      // Reads as empty (ENOENT), cannot be made (nothing can be made under /proc), even by root.
      const blocked = terminal({
        configDir: '/proc/dasvc-no-such-dir/cfg',
        openBrowser: async () => {
          opened += 1;
        },
      });
      const error = await failure(loginRun({ ...LOGIN, browser: true }, blocked.deps));
      expect(error).toBeInstanceOf(UsageError);
      expect(error).toMatchObject({ code: 'config_unwritable', facts: { folder: '/proc' } });
      expect(opened).toBe(0);
    },
  );

  it('store: memory keeps the tokens in the client alone', async () => {
    const t = terminal();
    const client = dasvc({
      ...LOGIN,
      env: { DASVC_CONFIG_DIR: t.configDir },
      store: 'memory',
      send,
    });
    await client.login({ openBrowser: approvingBrowser(app) });
    expect(await client.status()).toMatchObject({
      loggedIn: true,
      usable: true,
      storage: 'memory',
    });
    expect(t.store.read()).toEqual({});
    await client.logout();
    expect(await client.status()).toMatchObject({ loggedIn: false });
  });

  it('store: memory still takes its settings from the profile (SPEC §1), never its tokens', async () => {
    const t = terminal();
    await loginRun({ ...LOGIN, browser: true }, t.deps);
    const stored = t.store.read();
    const client = dasvc({ env: { DASVC_CONFIG_DIR: t.configDir }, store: 'memory', send });
    // The profile's settings, no session: the file's tokens are not the client's.
    expect(await client.status()).toMatchObject({
      baseUrl: LOGIN.baseUrl,
      clientId: LOGIN.clientId,
      loggedIn: false,
      storage: 'memory',
    });
    // A login with no settings given uses the profile's, and keeps its pair to itself.
    const { tokens } = await client.login({ openBrowser: approvingBrowser(app) });
    expect(await client.rpc('crm', 'contacts.list')).toEqual(expect.any(Array));
    expect(tokens.accessToken).not.toBe(stored.profiles!.default!.tokens!.accessToken);
    expect(t.store.read()).toEqual(stored);
  });
});
