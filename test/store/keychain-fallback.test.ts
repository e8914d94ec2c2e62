// Where no OS credential store can be reached, dasvc keeps secrets in the config file (SPEC §9).
// This file never connects to a D-Bus session: it runs on any machine.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { Keychain, KeychainUnavailable } from '../../src/store/keychain.js';

let work: string;
beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'dasvc-keychain-'));
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

it('the store is unavailable without a D-Bus session, says why, and is not asked again', async () => {
  delete process.env.DBUS_SESSION_BUS_ADDRESS;
  const keychain = new Keychain(join(work, 'config.json'));
  const error = await keychain.get('default').catch((e: unknown) => e);
  expect(error).toBeInstanceOf(KeychainUnavailable);
  const reason =
    process.platform === 'linux'
      ? 'no D-Bus session bus (DBUS_SESSION_BUS_ADDRESS is not set)'
      : expect.any(String);
  expect(error).toMatchObject({ reason });
  await expect(keychain.set('default', { clientSecret: 'never-stored' })).rejects.toBe(error);
});
