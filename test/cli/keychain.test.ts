// Secrets at rest through the CLI (SPEC §9), against a real Secret Service (gnome-keyring on a
// private D-Bus session, secret-tool confirming): a login leaves no secret in any file, refresh
// and logout work on the OS store, parallel processes refresh once, a corrupt entry is a clear
// error, a file-stored profile keeps working and moves at the next login; and without a D-Bus
// session, or with a store that never answers, the login says once that the file is used.
// A step that touches the store runs in a process (the keyring binding loaded here would keep its
// first bus for the worker's life); one that reads only the file runs in-process.
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  browserEnv,
  clearJournal,
  expectNoLeaksAfterAll,
  freshConfigDir,
  journalEntries,
  loginArgs,
  runCli,
  runCliProcess,
  secrets,
  startMockForCli,
  type RunOptions,
} from '../helpers/cli.js';
import {
  secretServiceTestsRun,
  startSecretService,
  useSecretService,
  type SecretService,
} from '../helpers/secret-service.js';

const mock = startMockForCli();
expectNoLeaksAfterAll();

const configOf = (dir: string) => JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8'));

/** The login's secrets must appear in no file of the config dir (the lock file included). */
function fileHoldsNoSecret(dir: string, stored: { clientSecret?: string; tokens?: object }): void {
  const text = readFileSync(join(dir, 'config.json'), 'utf8');
  const tokens = stored.tokens as { accessToken: string; refreshToken: string };
  for (const secret of [stored.clientSecret, tokens.accessToken, tokens.refreshToken])
    expect(text).not.toContain(secret);
}

describe.runIf(secretServiceTestsRun())('secrets in the OS credential store', () => {
  const context = useSecretService();
  let service: SecretService;
  beforeAll(() => {
    service = context.service;
  });
  const onBus = (options: RunOptions = {}): RunOptions => ({
    ...options,
    env: { DBUS_SESSION_BUS_ADDRESS: service.address, ...options.env },
  });
  const cli = (args: string[], dir: string, options?: RunOptions) =>
    runCliProcess(args, dir, onBus(options));

  /** The entry secret-tool finds for a config dir's profile, parsed; undefined when there is none. */
  async function entry(dir: string, profile = 'default') {
    const found = await service.secretTool([
      'lookup',
      'service',
      `dasvc:${join(dir, 'config.json')}`,
      'username',
      profile,
    ]);
    if (found.code !== 0) return undefined;
    const value = JSON.parse(found.stdout) as {
      clientSecret?: string;
      tokens?: { accessToken: string; refreshToken: string; expiresAt: number };
    };
    // The leak scan looks for these in every output of the file.
    for (const secret of [value.tokens?.accessToken, value.tokens?.refreshToken])
      if (secret) secrets.add(secret);
    return value;
  }

  async function storeEntry(dir: string, text: string, profile = 'default') {
    const label = ['--label', 'dasvc test'];
    const attributes = ['service', `dasvc:${join(dir, 'config.json')}`, 'username', profile];
    expect((await service.secretTool(['store', ...label, ...attributes], text)).code).toBe(0);
  }

  it('a login leaves no secret in the file; status, rpc, refresh and logout use the store', async () => {
    const dir = freshConfigDir();
    const login = await cli(loginArgs(mock.url), dir, { env: browserEnv() });
    expect(login.code, login.stderr).toBe(0);
    expect(login.stderr).not.toContain('not available');
    const stored = await entry(dir);
    expect(stored).toMatchObject({
      clientSecret: 'demo-secret',
      tokens: { expiresAt: expect.any(Number) },
    });
    fileHoldsNoSecret(dir, stored!);
    expect(configOf(dir).profiles.default).toMatchObject({
      secrets: 'keychain',
      clientId: 'demo-client',
    });
    expect(configOf(dir).profiles.default).not.toHaveProperty('tokens');

    const status = await cli(['token', 'status'], dir);
    expect(status.code).toBe(0);
    expect(status.stdout).toContain('storage:   OS credential store (Secret Service)');
    const json = await cli(['token', 'status', '--json'], dir);
    expect(JSON.parse(json.stdout)).toMatchObject({ storage: 'keychain', refreshable: true });

    const rpc = await cli(['rpc', 'crm', 'contacts.list'], dir);
    expect(rpc.code, rpc.stderr).toBe(0);
    expect(JSON.parse(rpc.stdout)).toHaveLength(2);

    const file = join(dir, 'config.json');
    const before = { text: readFileSync(file, 'utf8'), ino: statSync(file).ino };
    const refreshed = await cli(['token', 'refresh'], dir);
    expect(refreshed.code, refreshed.stderr).toBe(0);
    const rotated = await entry(dir);
    expect(rotated!.tokens!.refreshToken).not.toBe(stored!.tokens!.refreshToken);
    // Both tokens of the pair and the client secret in the one entry; the file, which holds none
    // of them, is not rewritten (the write after the answer is one call to the store).
    expect(rotated).toMatchObject({
      clientSecret: 'demo-secret',
      tokens: { accessToken: expect.any(String) },
    });
    expect({ text: readFileSync(file, 'utf8'), ino: statSync(file).ino }).toEqual(before);
    fileHoldsNoSecret(dir, rotated!);

    const logout = await cli(['logout'], dir);
    expect(logout.code, logout.stderr).toBe(0);
    // SPEC §9: logout deletes the secrets, the client secret too: the entry is gone; the profile
    // (its settings) stays, and holds no secret in the file either.
    expect(await entry(dir)).toBeUndefined();
    expect((await cli(['token', 'status'], dir)).code).toBe(3);
    expect(readFileSync(file, 'utf8')).not.toContain('demo-secret');
    expect(JSON.parse(readFileSync(file, 'utf8')).profiles.default.clientId).toBe('demo-client');

    // Tokens revoked with --all leave the entry the client secret alone: logout takes that too.
    expect((await cli(loginArgs(mock.url), dir, { env: browserEnv() })).code).toBe(0);
    expect((await cli(['token', 'revoke', '--all'], dir)).code).toBe(0);
    expect(await entry(dir)).toEqual({ clientSecret: 'demo-secret' });
    const secretOnly = await cli(['logout'], dir);
    expect(secretOnly.stderr).toContain('its client secret is forgotten');
    expect(await entry(dir)).toBeUndefined();

    const removed = await cli(['profile', 'remove', 'default'], dir);
    expect(removed.code, removed.stderr).toBe(0);
    expect(await entry(dir)).toBeUndefined();
  });

  it('16 parallel rpc across a due refresh refresh once, through the store', async () => {
    const dir = freshConfigDir();
    expect((await cli(loginArgs(mock.url), dir, { env: browserEnv() })).code).toBe(0);
    const stored = (await entry(dir))!;
    // Due for a refresh in the CLI's eyes (30 s left); the mock still honours the token.
    await storeEntry(
      dir,
      JSON.stringify({ ...stored, tokens: { ...stored.tokens, expiresAt: Date.now() + 30_000 } }),
    );
    await clearJournal(mock.url);
    const runs = await Promise.all(
      Array.from({ length: 16 }, () =>
        cli(['rpc', 'crm', 'contacts.list'], dir, { timeoutMs: 55_000 }),
      ),
    );
    expect(runs.filter((r) => r.code !== 0).map((r) => r.stderr)).toEqual([]);
    const refreshes = (await journalEntries(mock.url)).filter(
      (e) => e.path === '/webservice/authorize/refresh_token',
    );
    expect(refreshes).toHaveLength(1);
    const after = (await entry(dir))!;
    expect(after.tokens!.expiresAt).toBeGreaterThan(Date.now() + 3_000_000);
    fileHoldsNoSecret(dir, after);
  }, 60_000);

  it('--insecure-storage keeps them in the file; the next login moves them to the store', async () => {
    const dir = freshConfigDir();
    const insecure = await cli([...loginArgs(mock.url), '--insecure-storage'], dir, {
      env: browserEnv(),
    });
    expect(insecure.code, insecure.stderr).toBe(0);
    expect(await entry(dir)).toBeUndefined();
    expect(configOf(dir).profiles.default).toMatchObject({
      secrets: 'file',
      clientSecret: 'demo-secret',
      tokens: { refreshToken: expect.any(String) },
    });
    const status = await runCli(['token', 'status'], dir);
    expect(status.stdout).toContain(
      `storage:   config file ${join(dir, 'config.json')} (mode 0600)`,
    );

    const again = await cli(loginArgs(mock.url), dir, { env: browserEnv() });
    expect(again.code, again.stderr).toBe(0);
    const moved = await entry(dir);
    expect(moved).toMatchObject({ clientSecret: 'demo-secret' });
    fileHoldsNoSecret(dir, moved!);
    expect((await cli(['rpc', 'crm', 'contacts.list'], dir)).code).toBe(0);
    await cli(['profile', 'remove', 'default'], dir);
    expect(await entry(dir)).toBeUndefined();
  });

  it('a profile stored in the file by 0.1 keeps working, and moves to the store at the next login', async () => {
    const dir = freshConfigDir();
    // What 0.1 wrote: tokens and client secret in the file, no `secrets` member.
    expect(
      (await runCli([...loginArgs(mock.url), '--insecure-storage'], dir, { env: browserEnv() }))
        .code,
    ).toBe(0);
    const old = configOf(dir);
    delete old.profiles.default.secrets;
    writeFileSync(join(dir, 'config.json'), JSON.stringify(old), { mode: 0o600 });

    // In-process, on this file's bus: a profile in the file moves only at a login.
    const rpc = await runCli(['rpc', 'crm', 'contacts.list'], dir);
    expect(rpc.code, rpc.stderr).toBe(0);
    expect(await entry(dir)).toBeUndefined();
    expect((await runCli(['token', 'status', '--json'], dir)).stdout).toContain('"storage":"file"');

    expect((await cli(loginArgs(mock.url), dir, { env: browserEnv() })).code).toBe(0);
    const moved = await entry(dir);
    expect(moved).toMatchObject({ clientSecret: 'demo-secret' });
    fileHoldsNoSecret(dir, moved!);
    expect(configOf(dir).profiles.default.secrets).toBe('keychain');
    await cli(['profile', 'remove', 'default'], dir);
  });

  it('a corrupt entry is a clear error naming it; the file and the other profiles are untouched', async () => {
    const dir = freshConfigDir();
    expect((await cli(loginArgs(mock.url), dir, { env: browserEnv() })).code).toBe(0);
    expect(
      (await cli([...loginArgs(mock.url), '--profile', 'other'], dir, { env: browserEnv() })).code,
    ).toBe(0);
    await storeEntry(dir, '{"tokens": "garbled"');
    const before = readFileSync(join(dir, 'config.json'), 'utf8');

    const rpc = await cli(['rpc', 'crm', 'contacts.list'], dir);
    expect(rpc.code).toBe(2);
    expect(rpc.stderr).toContain(
      `the OS credential store's entry for profile default (service "dasvc:${join(dir, 'config.json')}") is corrupt: it is not valid JSON`,
    );
    expect(readFileSync(join(dir, 'config.json'), 'utf8')).toBe(before);
    expect((await cli(['rpc', 'crm', 'contacts.list', '--profile', 'other'], dir)).code).toBe(0);

    // A new login replaces it.
    expect((await cli(loginArgs(mock.url), dir, { env: browserEnv() })).code).toBe(0);
    expect((await cli(['rpc', 'crm', 'contacts.list'], dir)).code).toBe(0);
    await cli(['profile', 'remove', 'default'], dir);
    await cli(['profile', 'remove', 'other'], dir);
    expect(await entry(dir, 'other')).toBeUndefined();
  });
});

describe('where no credential store answers, the file is used and the login says so once', () => {
  // Regression: `profile list` failed as a whole when one profile's secrets were out of reach.
  it('profile list and show describe a profile whose secrets are in an unreachable store', async () => {
    const dir = freshConfigDir();
    const profile = {
      baseUrl: mock.url,
      clientId: 'demo-client',
      scope: 'crm',
      secrets: 'keychain',
    };
    writeFileSync(
      join(dir, 'config.json'),
      JSON.stringify({
        profiles: { default: profile, other: { baseUrl: mock.url, secrets: 'file' } },
      }),
      { mode: 0o600 },
    );
    const env = { DBUS_SESSION_BUS_ADDRESS: undefined };
    const list = await runCliProcess(['profile', 'list'], dir, { env });
    expect(list.code, list.stderr).toBe(0);
    expect(list.stdout).toContain(
      'default\t' + mock.url + '\tcrm\tunknown (credential store unreachable)',
    );
    expect(list.stdout).toMatch(/other\t.*\tlogged out/);
    expect(list.stderr).toContain('not available here');
    const json = await runCliProcess(['--json', 'profile', 'list'], dir, { env });
    expect(JSON.parse(json.stdout)).toContainEqual(
      expect.objectContaining({ profile: 'default', loggedIn: null }),
    );
    const show = await runCliProcess(['profile', 'show', 'default'], dir, { env });
    expect(show.code, show.stderr).toBe(0);
    expect(show.stdout).toContain('clientSecret: [unreachable]');
  });

  it('without a D-Bus session (a headless machine)', async () => {
    const dir = freshConfigDir();
    const login = await runCliProcess(loginArgs(mock.url), dir, {
      env: { ...browserEnv(), DBUS_SESSION_BUS_ADDRESS: undefined },
    });
    expect(login.code, login.stderr).toBe(0);
    expect(login.stderr).toContain(
      `The OS credential store is not available (${process.platform === 'linux' ? 'no D-Bus session bus (DBUS_SESSION_BUS_ADDRESS is not set)' : ''}`,
    );
    expect(login.stderr).toContain(`are kept in ${join(dir, 'config.json')} (mode 0600)`);
    expect(configOf(dir).profiles.default).toMatchObject({
      secrets: 'file',
      clientSecret: 'demo-secret',
    });
    const rpc = await runCli(['rpc', 'crm', 'contacts.list'], dir);
    expect(rpc.code).toBe(0);
    expect(rpc.stderr).not.toContain('not available');
    const status = await runCli(['token', 'status'], dir);
    expect(status.stdout).toContain('storage:   config file');
  });

  it.runIf(secretServiceTestsRun())(
    'with a store that never answers (its daemon stopped)',
    async () => {
      const silent = await startSecretService();
      try {
        silent.freeze();
        const env = { DBUS_SESSION_BUS_ADDRESS: silent.address };
        // A profile whose tokens are in the store: a clear error, not a wait. Asked beside the
        // login, since each waits out the store's deadline on a timer.
        const inStore = freshConfigDir();
        const profile = { baseUrl: mock.url, clientId: 'demo-client', secrets: 'keychain' };
        writeFileSync(
          join(inStore, 'config.json'),
          JSON.stringify({ profiles: { default: profile } }),
          { mode: 0o600 },
        );
        const printed = runCliProcess(['token', 'print'], inStore, { env });
        const dir = freshConfigDir();
        const login = await runCliProcess(loginArgs(mock.url), dir, {
          env: { ...browserEnv(), ...env },
        });
        expect(login.code, login.stderr).toBe(0);
        expect(login.stderr).toContain(
          'The OS credential store is not available (the Secret Service did not answer)',
        );
        expect(configOf(dir).profiles.default.secrets).toBe('file');
        // Later commands read the file and never ask the store: a process of its own, as the
        // store's bus address is read from the process's environment.
        const rpc = await runCliProcess(['rpc', 'crm', 'contacts.list'], dir, { env });
        expect(rpc.code).toBe(0);
        expect(rpc.stderr).toBe('');
        const print = await printed;
        expect(print.code).toBe(3);
        expect(print.stderr).toContain(
          'the tokens of profile default are in the OS credential store, which is not available here: the Secret Service did not answer',
        );
      } finally {
        await silent.stop();
      }
    },
  );
});
