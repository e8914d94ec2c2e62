// The programmatic client (SPEC §1) with its secrets in the OS credential store (SPEC §9), against
// a real Secret Service (gnome-keyring on a private D-Bus session; secret-tool confirms), in this
// process: the library logs in, calls, refreshes and logs out through the store exactly as the CLI
// does, and a second client object finds the pair the first one stored.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { dasvc } from '../../src/index.js';
import { createMockApp } from '../../src/mock/index.js';
import { appTransport, approvingBrowser } from '../helpers/in-process.js';
import { secretServiceTestsRun, useSecretService } from '../helpers/secret-service.js';

const app = createMockApp({ autoApprove: 'alice', log: () => undefined });
afterAll(() => app.close());

const LOGIN = {
  baseUrl: 'http://das.test',
  clientId: 'demo-client',
  clientSecret: 'demo-secret',
  scope: 'crm',
};

describe.runIf(secretServiceTestsRun())('dasvc() with the OS credential store', () => {
  const context = useSecretService();

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
    expect(await entry()).toEqual({ clientSecret: 'demo-secret' });
    expect(await other.status()).toMatchObject({ loggedIn: false, storage: 'keychain' });
  });
});
