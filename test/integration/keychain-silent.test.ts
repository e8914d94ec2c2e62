// A credential store that never answers (SPEC §9: silent for 3 s → the file): gnome-keyring owns
// the Secret Service name on a private D-Bus session and is then stopped (SIGSTOP), so calls get
// no reply. A file of its own: libdbus reads the session address once per process.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Keychain, KeychainUnavailable } from '../../src/store/keychain.js';
import { secretServiceTestsRun, useSecretService } from '../helpers/secret-service.js';

describe.runIf(secretServiceTestsRun())('a credential store that never answers', () => {
  const context = useSecretService();

  it('is given up after the timeout, once, and later calls do not wait again', async () => {
    // A short timeout stands in for the 3 s one: the same code path, without the wait.
    const keychain = new Keychain(join(context.work, 'config.json'), 300);
    expect(await keychain.get('default')).toBeUndefined();
    context.service.freeze();
    const error = await keychain
      .set('default', { clientSecret: 'never-stored' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(KeychainUnavailable);
    expect((error as KeychainUnavailable).reason).toBe('no answer within 0.3 s');
    await expect(keychain.get('default')).rejects.toBe(error);
  });
});
