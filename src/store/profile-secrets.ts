import { AuthError, UsageError, type DasvcError } from '../errors.js';
import { KeychainUnavailable, type Keychain, type ProfileSecrets } from './keychain.js';
import {
  KEYCHAIN_ENTRY_MEMBERS,
  type SecretsLocation,
  type Profile,
} from '../schemas/config-file.js';
import type { StoreData } from './profile-store.js';

/**
 * The members of a profile that are secrets, which the OS store holds for `secrets: 'keychain'`
 * profiles: those of its entry there.
 */
const SECRET_KEYS = KEYCHAIN_ENTRY_MEMBERS;

/** What was read from the OS store for a profile object: its secrets, or why they cannot be. */
const loadedSecrets = new WeakMap<
  Profile,
  { value: ProfileSecrets | undefined } | { error: DasvcError }
>();

/** Where the profile's secrets live: the OS store when its marker says so, else the file. */
export function secretsLocation(profile: Profile | undefined): SecretsLocation {
  return profile?.secrets === 'keychain' ? 'keychain' : 'file';
}

/** The OS store cannot be reached for a profile whose secrets are there (exit 3). */
export function keychainUnreachable(profile: string, error: KeychainUnavailable): AuthError {
  return new AuthError(
    `the tokens of profile ${profile} are in the OS credential store, which is not available here: ${error.reason}`,
    {
      code: 'keychain_unavailable',
      facts: { profile },
      cause: error,
    },
  );
}

function settle(profile: Profile, key: (typeof SECRET_KEYS)[number], value: unknown): void {
  if (value === undefined) delete profile[key];
  else
    Object.defineProperty(profile, key, {
      value,
      writable: true,
      enumerable: true,
      configurable: true,
    });
}

/**
 * Makes the secrets of the file's `secrets: 'keychain'` profiles readable where the file left them
 * out: `profile.tokens` and `profile.clientSecret` give what loadSecrets read from the OS store
 * (or throw why it could not), and may be replaced. The store is asked asynchronously, within its
 * deadline, by loadSecrets alone: reading a secret that was not loaded first is a bug.
 */
export function attachSecrets(data: StoreData): void {
  for (const [name, profile] of Object.entries(data.profiles ?? {})) {
    if (profile.secrets !== 'keychain') continue;
    for (const key of SECRET_KEYS) {
      Object.defineProperty(profile, key, {
        configurable: true,
        enumerable: true,
        get() {
          const loaded = loadedSecrets.get(profile);
          if (loaded === undefined)
            throw new Error(
              `the ${key} of profile ${name} was read before the OS credential store was asked`,
            );
          if ('error' in loaded) throw loaded.error;
          const value = loaded.value?.[key];
          settle(profile, key, value);
          return value;
        },
        set(value: unknown) {
          settle(profile, key, value);
        },
      });
    }
  }
}

/**
 * Reads the secrets of `profile` (named `name`, read by ProfileStore.read) from the OS store, once
 * per read of the file, so that a read under the lock sees the store as it is then. Nothing for a
 * profile whose secrets were in the file when it was read, or have both been replaced. A store
 * out of reach or a corrupt entry is remembered and thrown where a secret is used; only Ctrl-C
 * is thrown here.
 */
export async function loadSecrets(
  profile: Profile | undefined,
  name: string,
  keychain: () => Keychain,
): Promise<void> {
  if (profile === undefined || loadedSecrets.has(profile) || !pending(profile)) return;
  try {
    loadedSecrets.set(profile, { value: await keychain().get(name) });
  } catch (error) {
    if (error instanceof KeychainUnavailable)
      loadedSecrets.set(profile, { error: keychainUnreachable(name, error) });
    else if (error instanceof UsageError) loadedSecrets.set(profile, { error });
    else throw error;
  }
}

/** Whether one of the profile's secrets is still to be read from the OS store. */
function pending(profile: Profile): boolean {
  return SECRET_KEYS.some((key) => Object.getOwnPropertyDescriptor(profile, key)?.get);
}

/** Neither secret of the profile was read or replaced since the file was read. */
function untouched(profile: Profile): boolean {
  return SECRET_KEYS.every((key) => Object.getOwnPropertyDescriptor(profile, key)?.get);
}

/**
 * Puts the secrets of `secrets: 'keychain'` profiles into the OS store and returns the data to
 * write to the file, which holds none of them (SPEC §9). A profile that leaves the OS store (removed,
 * or switched to the file by `login --insecure-storage`) has its entry deleted. `onDisk` is the
 * file as it is now; callers hold the lock, which so guards the OS store too. `check` sees the
 * file to write before the OS store changes, and may refuse it by throwing.
 */
export async function storeSecrets(
  data: StoreData,
  onDisk: StoreData,
  keychain: () => Keychain,
  check: (file: StoreData) => void = () => undefined,
): Promise<StoreData> {
  const profiles: Record<string, Profile> = {};
  const writes: { name: string; run: () => Promise<unknown>; bestEffort?: boolean }[] = [];
  for (const [name, profile] of Object.entries(data.profiles ?? {})) {
    if (profile.secrets !== 'keychain') {
      // A plain copy: reading a secret that was in the OS store brings it into the file.
      await loadSecrets(profile, name, keychain);
      profiles[name] = { ...profile };
      continue;
    }
    profiles[name] = withoutSecrets(profile);
    // Its entry is written again below, or kept as it is: none is left over.
    delete profiles[name].keychainEntry;
    const wasInStore = onDisk.profiles?.[name]?.secrets === 'keychain';
    if (wasInStore && untouched(profile)) continue;
    // A secret neither read nor replaced is the one in the store (the other one changed).
    await loadSecrets(profile, name, keychain);
    const secrets: ProfileSecrets = {};
    if (profile.clientSecret !== undefined) secrets.clientSecret = profile.clientSecret;
    if (profile.tokens !== undefined) secrets.tokens = profile.tokens;
    const loaded = loadedSecrets.get(profile);
    const same =
      loaded && 'value' in loaded && JSON.stringify(loaded.value ?? {}) === JSON.stringify(secrets);
    if (wasInStore && same) continue;
    writes.push({ name, run: () => replaceSecrets(keychain(), name, secrets) });
  }
  for (const [name, before] of Object.entries(onDisk.profiles ?? {})) {
    const now = data.profiles?.[name];
    if (now?.secrets === 'keychain') continue;
    const removed = now === undefined;
    const forgotten = !removed && now.tokens === undefined && now.clientSecret === undefined;
    // A profile whose secrets move to the file (a login that fell back, --insecure-storage)
    // leaves its entry; so may one whose refresh the store did not take (keychainEntry). The
    // entry goes when the profile or its secrets go (remove, logout), or as they move: when the
    // store answers, else it stays marked for the next of those. A removed profile's must go.
    const moving = before.secrets === 'keychain';
    if (!moving && !(before.keychainEntry === true && (removed || forgotten))) continue;
    writes.push({
      name,
      run: async () => {
        await keychain().delete(name);
        delete profiles[name]?.keychainEntry;
      },
      bestEffort: !removed,
    });
  }
  const file: StoreData = { ...data };
  if (data.profiles !== undefined) file.profiles = profiles;
  check(file);
  for (const { name, run, bestEffort } of writes) {
    try {
      await run();
    } catch (error) {
      if (!(error instanceof KeychainUnavailable)) throw error;
      if (!bestEffort) throw keychainUnreachable(name, error);
      if (profiles[name] !== undefined && profiles[name].secrets !== 'keychain')
        profiles[name].keychainEntry = true;
    }
  }
  return file;
}

/**
 * Replaces the profile's entry in the OS store with `secrets` (none: the entry goes), in one call:
 * its client secret and both tokens of the pair together, so that no kill leaves the new refresh
 * token without its access token or the reverse (SPEC §9).
 */
export async function replaceSecrets(
  keychain: Keychain,
  profile: string,
  secrets: ProfileSecrets,
): Promise<void> {
  try {
    if (secrets.clientSecret === undefined && secrets.tokens === undefined)
      await keychain.delete(profile);
    else await keychain.set(profile, secrets);
  } catch (error) {
    if (error instanceof KeychainUnavailable) throw keychainUnreachable(profile, error);
    throw error;
  }
}

/** The OS store account of the login's write probe: not a profile name (those have no `:`). */
const PROBE_ACCOUNT = ':dasvc-write-probe';

/**
 * Where a login stores the profile's secrets (SPEC §9): the OS store when it answers (within 3 s)
 * and takes a write, else the file, with the reason for the one message the login prints; `insecure`
 * (`--insecure-storage`) chooses the file without asking the store.
 */
export async function chooseSecretsLocation(
  keychain: Keychain,
  profile: string,
  insecure = false,
): Promise<{ location: SecretsLocation; unavailable?: string }> {
  if (insecure) return { location: 'file' };
  try {
    const held = await keychain.get(profile);
    // A read succeeds on a locked keyring (or none unlocked) when the entry does not exist yet:
    // only a write shows that the store can take the secrets. (An entry that exists and was read
    // shows it already.) The probe is an account no profile can have (`:`), written and deleted:
    // the profile's own entry is not touched outside the lock.
    if (held === undefined) {
      await keychain.set(PROBE_ACCOUNT, {});
      await keychain.delete(PROBE_ACCOUNT);
    }
  } catch (error) {
    if (error instanceof KeychainUnavailable)
      return { location: 'file', unavailable: error.reason };
    // A corrupt entry: the store works, and this login replaces the entry.
    if (!(error instanceof UsageError)) throw error;
  }
  return { location: 'keychain' };
}

/** The profile's settings without its secrets, read without touching the OS store. */
export function withoutSecrets(profile: Profile | undefined): Profile {
  const copy: Record<string, unknown> = {};
  for (const key of Object.keys(profile ?? {})) {
    if (!(SECRET_KEYS as readonly string[]).includes(key))
      copy[key] = profile![key as keyof Profile];
  }
  return copy as Profile;
}

/** Where the secrets live, in words for `token status` (SPEC §9). */
export function describeSecretsLocation(location: SecretsLocation, file: string): string {
  if (location === 'file') return `config file ${file} (mode 0600)`;
  const store =
    process.platform === 'darwin'
      ? 'macOS Keychain'
      : process.platform === 'win32'
        ? 'Windows Credential Manager'
        : 'Secret Service';
  return `OS credential store (${store})`;
}

/** The one line a login (or init) prints when the OS store cannot take the secrets (SPEC §9). */
export function fileFallbackMessage(profile: string, reason: string, file: string): string {
  return `The OS credential store is not available (${reason}): the tokens and client secret of profile ${profile} are kept in ${file} (mode 0600).`;
}
