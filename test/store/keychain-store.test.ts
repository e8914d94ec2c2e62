// The OS credential-store backend (SPEC §9) against a real Secret Service: gnome-keyring on a
// private D-Bus session, with `secret-tool` confirming what dasvc wrote and deleted; the
// programmatic client (SPEC §1) logging in, calling, refreshing and logging out through it in this
// process; a store that stops answering; and a keyring that is locked. One file, in a process of
// its own (vitest.config.ts): libdbus reads the session address once per process, so every test
// here shares one session, in this order: the store stops answering (and answers again), then the
// keyring is locked for good.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UsageError } from '../../src/errors.js';
import { dasvc } from '../../src/index.js';
import { createMockApp } from '../../src/mock/index.js';
import { Keychain, KeychainUnavailable } from '../../src/store/keychain.js';
import { chooseSecretsLocation } from '../../src/store/profile-secrets.js';
import { ProfileStore } from '../../src/store/profile-store.js';
import { fileTokenStore } from '../../src/store/token-store.js';
import type { StoredTokens } from '../../src/schemas/config-file.js';
import { appTransport, approvingBrowser } from '../helpers/in-process.js';
import {
  secretServiceTestsRun,
  useSecretService,
  type SecretService,
} from '../helpers/secret-service.js';

const tokens: StoredTokens = {
  accessToken: 'access-token-kept-in-the-keyring-0001',
  refreshToken: 'refresh-token-kept-in-the-keyring-0001',
  expiresAt: 1_900_000_000_000,
  obtainedAt: 1_800_000_000_000,
};

const app = createMockApp({ autoApprove: 'alice', log: () => undefined });
afterAll(() => app.close());

const LOGIN = {
  baseUrl: 'http://das.test',
  clientId: 'demo-client',
  clientSecret: 'demo-secret',
  scope: 'crm',
};

/** The stored text of an entry, as secret-tool reads it ('' and code 1 when there is none). */
async function lookup(service: SecretService, file: string, profile: string) {
  return service.secretTool(['lookup', 'service', `dasvc:${file}`, 'username', profile]);
}

describe.runIf(secretServiceTestsRun())('the OS credential store (Secret Service)', () => {
  const context = useSecretService();
  const configFile = (name: string) => join(context.work, name, 'config.json');
  /** A config file whose profile keeps its secrets in the OS store: the file, and the profile. */
  async function keychainProfile(name: string) {
    const file = configFile(name);
    mkdirSync(join(file, '..'), { recursive: true });
    await new Keychain(file).set('default', { clientSecret: 'demo-secret', tokens });
    const profile = { baseUrl: 'http://das.test', clientId: 'demo-client', secrets: 'keychain' };
    writeFileSync(file, JSON.stringify({ profiles: { default: profile } }));
    return { file, profile };
  }
  /** The profile as the file holds it after a new pair went there instead of the OS store. */
  function expectPairInFile(file: string, profile: object, pair: StoredTokens): void {
    const written = JSON.parse(readFileSync(file, 'utf8')) as {
      profiles: Record<string, Record<string, unknown>>;
    };
    expect(written.profiles.default).toEqual({
      ...profile,
      secrets: 'file',
      keychainEntry: true,
      clientSecret: 'demo-secret',
      tokens: pair,
    });
  }
  let service: SecretService;
  beforeAll(() => {
    service = context.service;
  });

  it('stores, reads and deletes a profile’s secrets, as secret-tool sees them', async () => {
    const file = configFile('a');
    const keychain = new Keychain(file);
    expect(await keychain.get('default')).toBeUndefined();
    await keychain.set('default', { clientSecret: 'client-secret-in-keyring', tokens });
    const stored = await lookup(service, file, 'default');
    expect(stored.code).toBe(0);
    expect(JSON.parse(stored.stdout)).toEqual({ clientSecret: 'client-secret-in-keyring', tokens });
    // Completion's read by a child process gets the same.
    expect(await new Keychain(file).getInChildProcess('default')).toEqual({
      clientSecret: 'client-secret-in-keyring',
      tokens,
    });
    // Another process (a new Keychain) reads the same entry.
    expect(await new Keychain(file).get('default')).toEqual({
      clientSecret: 'client-secret-in-keyring',
      tokens,
    });
    const rotated = { ...tokens, accessToken: 'access-token-after-a-refresh-0002' };
    await keychain.set('default', { clientSecret: 'client-secret-in-keyring', tokens: rotated });
    expect(JSON.parse((await lookup(service, file, 'default')).stdout).tokens).toEqual(rotated);
    expect(await keychain.delete('default')).toBe(true);
    expect(await lookup(service, file, 'default')).toEqual({ code: 1, stdout: '' });
    expect(await keychain.delete('default')).toBe(false);
    expect(await keychain.get('default')).toBeUndefined();
  });

  it('keys entries by config file and profile: two config dirs never share secrets', async () => {
    const [one, two] = [new Keychain(configFile('one')), new Keychain(configFile('two'))];
    await one.set('default', { clientSecret: 'secret-of-one' });
    await two.set('default', { clientSecret: 'secret-of-two' });
    await one.set('staging', { clientSecret: 'staging-of-one' });
    expect(await one.get('default')).toEqual({ clientSecret: 'secret-of-one' });
    expect(await two.get('default')).toEqual({ clientSecret: 'secret-of-two' });
    expect(await two.delete('default')).toBe(true);
    expect(await one.get('default')).toEqual({ clientSecret: 'secret-of-one' });
    expect(await one.get('staging')).toEqual({ clientSecret: 'staging-of-one' });
    expect(await two.get('staging')).toBeUndefined();
    await one.delete('default');
    await one.delete('staging');
    const left = await service.secretTool([
      'search',
      '--all',
      'service',
      `dasvc:${configFile('one')}`,
    ]);
    expect(left.stdout).toBe('');
  });

  it('reports a corrupt entry clearly, naming it, and loses nothing else', async () => {
    const file = configFile('corrupt');
    const keychain = new Keychain(file);
    await keychain.set('fine', { tokens });
    const store = (profile: string, text: string) =>
      service.secretTool(
        ['store', '--label', 'x', 'service', `dasvc:${file}`, 'username', profile],
        text,
      );
    expect((await store('broken', 'not json at all')).code).toBe(0);
    const wrong =
      '{"tokens":{"accessToken":true,"refreshToken":null,"expiresAt":null,"obtainedAt":1}}';
    expect((await store('wrong', wrong)).code).toBe(0);

    const broken = await keychain.get('broken').catch((e: unknown) => e);
    expect(broken).toBeInstanceOf(UsageError);
    expect(broken).toMatchObject({
      code: 'keychain_corrupt',
      exitCode: 2,
      message: `the OS credential store's entry for profile broken (service "dasvc:${file}") is corrupt: it is not valid JSON`,
    });
    await expect(keychain.get('wrong')).rejects.toThrow(
      /profile wrong .* is corrupt: \/tokens\/accessToken: must be a string or null, not true$/,
    );
    // Reading it changed nothing: the entry stays for the user to look at, the others still work.
    expect((await lookup(service, file, 'broken')).stdout).toBe('not json at all');
    expect(await keychain.get('fine')).toEqual({ tokens });
    expect(await keychain.delete('broken')).toBe(true);
    expect(await keychain.delete('wrong')).toBe(true);
    expect(await keychain.delete('fine')).toBe(true);
  });

  it('a change the config file cannot hold is refused before the store changes', async () => {
    const { file } = await keychainProfile('guarded');
    const before = readFileSync(file, 'utf8');
    const error = await new ProfileStore(file)
      .update((data) => {
        const profile = data.profiles!.default!;
        profile.tokens = { ...tokens, accessToken: 'a-new-access-token-0002' };
        profile.refreshMargin = -5;
      }, 'default')
      .catch((e: unknown) => e);
    expect(error).toMatchObject({
      kind: 'usage',
      message: expect.stringContaining('was not written'),
    });
    // Neither the file nor the OS store's entry changed.
    expect(readFileSync(file, 'utf8')).toBe(before);
    expect(await new Keychain(file).get('default')).toEqual({
      clientSecret: 'demo-secret',
      tokens,
    });
  });

  it('logs in, calls, refreshes and logs out through the store; no secret in the file', async () => {
    const configDir = join(context.work, 'library');
    const options = { env: { DASVC_CONFIG_DIR: configDir }, send: appTransport(app) };
    const file = join(configDir, 'config.json');
    const entry = async () => {
      const found = await context.service.secretTool([
        'lookup',
        'service',
        `dasvc:${file}`,
        'username',
        'default',
      ]);
      return found.code === 0
        ? (JSON.parse(found.stdout) as {
            clientSecret?: string;
            tokens?: { accessToken: string; refreshToken: string };
          })
        : undefined;
    };

    const client = dasvc({ ...LOGIN, ...options });
    await client.login({ openBrowser: approvingBrowser(app) });
    const stored = await entry();
    expect(stored).toMatchObject({ clientSecret: 'demo-secret', tokens: expect.any(Object) });
    // The login's write probe (a new profile: its entry did not exist) left nothing behind.
    expect((await lookup(context.service, file, ':dasvc-write-probe')).code).not.toBe(0);
    const text = readFileSync(file, 'utf8');
    for (const secret of ['demo-secret', stored!.tokens!.accessToken, stored!.tokens!.refreshToken])
      expect(text).not.toContain(secret);
    expect(JSON.parse(text).profiles.default.secrets).toBe('keychain');
    expect(await client.status()).toMatchObject({ loggedIn: true, storage: 'keychain' });
    expect(await client.accessToken()).toBe(stored!.tokens!.accessToken);

    // Another client object (another part of the app, another process) reads the same pair.
    const other = dasvc(options);
    expect(await other.rpc('crm', 'contacts.list')).toHaveLength(2);
    await other.refresh();
    const rotated = await entry();
    expect(rotated!.tokens!.refreshToken).not.toBe(stored!.tokens!.refreshToken);
    expect(await client.accessToken()).toBe(rotated!.tokens!.accessToken);

    await client.logout();
    expect(await entry()).toBeUndefined();
    expect(await other.status()).toMatchObject({ loggedIn: false, storage: 'keychain' });
  });

  it('is given up after the timeout, once, and later calls do not wait again', async () => {
    // A short timeout stands in for the 3 s one: the same code path, without the wait.
    const keychain = new Keychain(join(context.work, 'config.json'), 300);
    expect(await keychain.get('default')).toBeUndefined();
    // Another, with no deadline to speak of: Ctrl-C alone ends its wait.
    const interrupt = new AbortController();
    const patient = new Keychain(join(context.work, 'config.json'), 600_000, interrupt.signal);
    expect(await patient.get('default')).toBeUndefined();
    context.service.freeze();
    const waiting = patient.get('default');
    const reason = new Error('interrupted');
    interrupt.abort(reason);
    await expect(waiting).rejects.toBe(reason);
    const error = await keychain
      .set('default', { clientSecret: 'never-stored' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(KeychainUnavailable);
    expect((error as KeychainUnavailable).reason).toBe('no answer within 0.3 s');
    await expect(keychain.get('default')).rejects.toBe(error);
    // Completion's read (SPEC §3: it gives up within 1 s) runs in a child process: a new entry's
    // session opening blocks it for the binding's 2 s D-Bus timeout, and this process's timer
    // still ends the wait (in this process it would end with the D-Bus error, 2 s later).
    const offThread = await new Keychain(configFile('frozen'), 300)
      .getInChildProcess('default')
      .catch((e: unknown) => e);
    expect(offThread).toBeInstanceOf(KeychainUnavailable);
    expect((offThread as KeychainUnavailable).reason).toBe('no answer within 0.3 s');
    context.service.thaw();
    // Answering again, to a new Keychain (a new process, for the CLI): the next test needs it.
    // (The daemon does act on the set it got while frozen, late: another profile is asked.)
    const again = new Keychain(join(context.work, 'config.json'));
    expect(await again.get('asked-after-the-thaw')).toBeUndefined();
  });

  it('a refreshed pair the store does not take goes to the file rather than be lost', async () => {
    const { file, profile } = await keychainProfile('refresh-frozen');
    const store = new ProfileStore(file);
    const told: string[] = [];
    store.tell = (message) => told.push(message);
    const rotated: StoredTokens = {
      ...tokens,
      accessToken: 'access-token-after-the-refresh-0002',
      refreshToken: 'refresh-token-after-the-refresh-0002',
    };
    // The refresh's answer is in (the service honours only the new pair now) when the store
    // stops answering: the write gives up after the store's 3 s.
    await fileTokenStore(store).update('default', async (current, save) => {
      expect(current?.refreshToken).toBe(tokens.refreshToken);
      context.service.freeze();
      try {
        await save(rotated);
      } finally {
        context.service.thaw();
      }
    });
    expectPairInFile(file, profile, rotated);
    // Why it gave up is the store's (its deadline, or the binding's own D-Bus timeout).
    expect(told).toHaveLength(1);
    expect(told[0]).toMatch(
      /^the OS credential store did not take the new tokens of profile default \(.+\); they are in /,
    );
    expect(told[0]!.endsWith(`${file} now, and the store's entry keeps the ones before`)).toBe(
      true,
    );
    expect(await fileTokenStore(new ProfileStore(file)).load('default')).toEqual(rotated);
    // The entry left in the store, with the client secret, goes with the profile's secrets.
    expect(await new Keychain(file).get('default')).toMatchObject({ clientSecret: 'demo-secret' });
    const later = new ProfileStore(file);
    await later.update((data) => {
      delete data.profiles!.default!.tokens;
      delete data.profiles!.default!.clientSecret;
    });
    expect(await new Keychain(file).get('default')).toBeUndefined();
    expect(JSON.parse(readFileSync(file, 'utf8')).profiles.default).not.toHaveProperty(
      'keychainEntry',
    );
  });

  it('Ctrl-C while the store takes a refreshed pair: the pair goes to the file, and 130 still', async () => {
    const { file, profile } = await keychainProfile('refresh-interrupted');
    const interrupt = new AbortController();
    const reason = new Error('interrupted');
    const rotated: StoredTokens = {
      ...tokens,
      accessToken: 'access-token-before-the-ctrl-c-0003',
      refreshToken: 'refresh-token-before-the-ctrl-c-0003',
    };
    const done = fileTokenStore(new ProfileStore(file, interrupt.signal)).update(
      'default',
      async (_current, save) => {
        context.service.freeze();
        try {
          const saving = save(rotated);
          interrupt.abort(reason);
          await saving;
        } finally {
          context.service.thaw();
        }
      },
    );
    await expect(done).rejects.toBe(reason);
    expectPairInFile(file, profile, rotated);
  });

  it('is unavailable while the keyring is locked', async () => {
    const file = configFile('locked');
    await new Keychain(file).set('default', { tokens });
    const locked = await service.dbusSend([
      '--dest=org.freedesktop.secrets',
      '--print-reply',
      '/org/freedesktop/secrets',
      'org.freedesktop.Secret.Service.Lock',
      'array:objpath:/org/freedesktop/secrets/collection/login',
    ]);
    expect(locked.code).toBe(0);
    const error = await new Keychain(file).get('default').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(KeychainUnavailable);
    expect((error as KeychainUnavailable).reason).toMatch(/locked/);
    // Nothing is asked of a locked keyring, not even for a profile with no entry yet: a read that
    // finds an entry, and any write, would wait for a person at its unlock prompt. A login sends
    // the secrets to the file (regression: the login failed after the exchange).
    const fresh = configFile('locked-fresh');
    await expect(new Keychain(fresh).get('default')).rejects.toThrow(/locked/);
    const where = await chooseSecretsLocation(new Keychain(fresh), 'default');
    expect(where.location).toBe('file');
    expect(where.unavailable).toMatch(/locked/);
  });
});
