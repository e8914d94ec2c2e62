import { accessSync, constants, existsSync } from 'node:fs';
import { dirname } from 'node:path';
import { UsageError } from '../errors.js';
import type { ConfigFile, Profile, StoredTokens } from '../schemas/config-file.js';
import { Keychain, KEYCHAIN_TIMEOUT_MS, KeychainUnavailable } from './keychain.js';
import {
  attachSecrets,
  loadSecrets,
  replaceSecrets,
  secretsLocation,
  storeSecrets,
} from './profile-secrets.js';
import { openConfigWriter, type ConfigWriter } from './config-writer.js';
import { checkProfileName, configFileShape, parseConfigFile } from './store-shape.js';
import type { Env } from '../util/env.js';
import { fileProblem, unwritableFacts } from '../util/file-problem.js';
import { makeFolders } from '../util/make-folders.js';
import { readRegularFile } from '../util/regular-file.js';

// The config file's types derive from its schema (src/schemas/config-file.schema.json).
/** The whole config file. */
export type StoreData = ConfigFile;

/** Default profile name. */
export const DEFAULT_PROFILE = 'default';

/**
 * Profiles and tokens on disk. Reads parse the file directly (no conf on the rpc path); writes go
 * through conf (config-writer.ts) under the lock file beside the store, each one a
 * read-modify-write of the file as it is at that moment.
 */
export class ProfileStore {
  readonly lockPath: string;
  /**
   * What a person should hear from the store (the CLI: stderr; the library: `tell`): that the lock
   * has been held by another process for 1 s, that a refreshed pair went to the file.
   */
  tell?: (message: string) => void;

  private keychainInstance: Keychain | undefined;

  /** `signal` (Ctrl-C) ends a wait on the OS credential store at once. */
  constructor(
    readonly file: string,
    private readonly signal?: AbortSignal,
  ) {
    this.lockPath = `${file}.lock`;
  }

  /** The OS credential store's entries of this config file; nothing loads until used. */
  get keychain(): Keychain {
    return (this.keychainInstance ??= new Keychain(this.file, KEYCHAIN_TIMEOUT_MS, this.signal));
  }

  /**
   * The file's content. A missing file is empty. One that is not JSON or not of the shape dasvc
   * writes is a UsageError naming it, and is never replaced. The secrets of a `secrets: 'keychain'`
   * profile are readable once loadSecrets has asked the OS store for them (profile-secrets.ts).
   */
  read(): StoreData {
    const data = this.readFile();
    attachSecrets(data);
    return data;
  }

  /**
   * Reads the secrets of `profile` (as read by read(), named `name`) from the OS store, within its
   * deadline; nothing for a profile whose secrets are in the file.
   */
  async loadSecrets(profile: Profile | undefined, name: string): Promise<void> {
    await loadSecrets(profile, name, () => this.keychain);
  }

  /** The file alone, as it is on disk. */
  private readFile(): StoreData {
    let text: string;
    try {
      text = readRegularFile(this.file);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {};
      throw new UsageError(`cannot read config file ${this.file}: ${fileProblem(error)}`, {
        code: 'config_unreadable',
      });
    }
    return parseConfigFile(text, this.file);
  }

  /** One profile, or undefined. */
  profile(name: string): Profile | undefined {
    return this.read().profiles?.[name];
  }

  /** Runs `fn` holding the store's lock file (shared with token refresh). */
  async locked<T>(fn: () => Promise<T>): Promise<T> {
    this.ensureDir();
    // Loaded on first write: reads (the rpc hot path) never take the lock.
    const { withFileLock } = await import('./file-lock.js');
    return withFileLock(this.lockPath, fn, this.tell ? { onWait: this.tell } : {});
  }

  /**
   * Read-modify-write under the lock; `change` edits the data in place, with the secrets of
   * profile `secretsOf` loaded first. Returns the written data.
   */
  async update(change: (data: StoreData) => void, secretsOf?: string): Promise<StoreData> {
    return this.locked(async () => {
      const data = this.read();
      if (secretsOf !== undefined) await this.loadSecrets(data.profiles?.[secretsOf], secretsOf);
      change(data);
      await this.writeUnlocked(data);
      return data;
    });
  }

  /**
   * Writes the whole file through conf (atomic, mode 0600), the OS store's secrets first. Callers
   * hold the lock.
   */
  private async writeUnlocked(data: StoreData): Promise<void> {
    const writer = await this.writer();
    // First the OS store (its errors are its own), then the file without the secrets; never a
    // file its next read would refuse as corrupt, with every profile in it, checked before the
    // OS store changes.
    const fileData = await storeSecrets(
      data,
      this.readFile(),
      () => this.keychain,
      (file) => {
        const { problem } = configFileShape(file);
        if (problem !== undefined) {
          throw new UsageError(`${this.file} was not written: it would be invalid (${problem})`, {
            code: 'bad_setting',
          });
        }
      },
    );
    try {
      writer.write(fileData);
    } catch (error) {
      throw this.unwritable(error);
    }
  }

  /** The file's writer, opened once the lock is held (it clears what a killed writer left). */
  private async writer(): Promise<ConfigWriter> {
    try {
      return await openConfigWriter(this.file);
    } catch (error) {
      throw this.unwritable(error);
    }
  }

  /**
   * Under the lock: reads the file and readies the write of one profile's tokens, so that once a
   * refresh's answer is in, storing the rotated pair is the first thing done and is synchronous
   * (the service no longer honours the old pair: docs/design/refresh-write.md). For a `secrets:
   * 'keychain'` profile the write is one call to the OS store (asynchronous, within its deadline),
   * its client secret read now: the file does not change, unless the store does not take the
   * pair, which then goes to the file with the client secret rather than be lost.
   */
  async prepareTokensWrite(profile: string): Promise<{
    data: StoreData;
    write: (tokens: StoredTokens | undefined) => void | Promise<void>;
  }> {
    const onDisk = this.readFile();
    const data = structuredClone(onDisk);
    attachSecrets(data);
    const inStore = secretsLocation(onDisk.profiles?.[profile]) === 'keychain';
    if (inStore) await this.loadSecrets(data.profiles![profile], profile);
    // Opened before the request leaves: the file's write is synchronous, and the file is where a
    // pair goes that the OS store does not take.
    const writer = await this.writer();
    /** The file with this profile's entry replaced, and nothing else of it changed. */
    const writeEntry = (entry: Profile) => {
      try {
        writer.write({ ...onDisk, profiles: { ...onDisk.profiles, [profile]: entry } });
      } catch (error) {
        throw this.unwritable(error);
      }
    };
    if (!inStore) {
      // What the file holds, this profile's tokens replaced: no secret of the OS store in it.
      const entry: Profile = { ...onDisk.profiles?.[profile] };
      delete entry.tokens;
      const write = (tokens: StoredTokens | undefined) =>
        writeEntry(tokens === undefined ? entry : { ...entry, tokens });
      return { data, write };
    }
    const clientSecret = data.profiles![profile]!.clientSecret;
    const write = async (tokens: StoredTokens | undefined) => {
      const secrets = {
        ...(clientSecret === undefined ? {} : { clientSecret }),
        ...(tokens === undefined ? {} : { tokens }),
      };
      if (tokens === undefined) return replaceSecrets(this.keychain, profile, secrets);
      try {
        await this.keychain.set(profile, secrets);
      } catch (error) {
        const interrupted = this.signal?.aborted === true && error === this.signal.reason;
        if (!interrupted && !(error instanceof KeychainUnavailable)) throw error;
        // The store did not take the pair (no answer in time, a keyring locked meanwhile, Ctrl-C
        // during the write). After a refresh the service honours only this pair: it goes to the
        // file (mode 0600) with the client secret, and the profile's secrets live there from now
        // on, as after a login that found no store. The store's entry keeps the pair before
        // until it can be deleted (keychainEntry), at the latest when the profile goes.
        writeEntry({
          ...onDisk.profiles?.[profile],
          ...secrets,
          secrets: 'file',
          keychainEntry: true,
        });
        const why = error instanceof KeychainUnavailable ? error.reason : 'interrupted';
        this.tell?.(
          `the OS credential store did not take the new tokens of profile ${profile} (${why}); they are in ${this.file} now, and the store's entry keeps the ones before`,
        );
        if (interrupted) throw error;
      }
    };
    return { data, write };
  }

  private unwritable(error: unknown): UsageError {
    return new UsageError(`cannot write config file ${this.file}: ${fileProblem(error)}`, {
      code: 'config_unwritable',
      facts: unwritableFacts(dirname(this.file), error),
    });
  }

  /**
   * That the config file can be written, asked before work that would be lost otherwise (a
   * login's code exchange): its folder made if need be, and writable. The folder, not the file:
   * the file is replaced by a rename and locked by a mkdir beside it, never written in place.
   */
  assertWritable(): void {
    this.ensureDir();
    try {
      accessSync(dirname(this.file), constants.W_OK);
    } catch (error) {
      throw this.unwritable(error);
    }
  }

  private ensureDir(): void {
    try {
      makeFolders(dirname(this.file), 0o700);
    } catch (error) {
      throw new UsageError(
        `cannot create config directory ${dirname(this.file)}: ${fileProblem(error)}`,
        // The folder to make writable is the nearest one there is.
        { code: 'config_unwritable', facts: unwritableFacts(nearestFolder(this.file), error) },
      );
    }
  }
}

/** Which profile a command uses: `--profile` > `DASVC_PROFILE` > the file's active profile > `default`. */
export function activeProfileName(flag: string | undefined, env: Env, data: StoreData): string {
  if (flag !== undefined) return checkProfileName(flag, '--profile');
  if (env.DASVC_PROFILE) return checkProfileName(env.DASVC_PROFILE, 'DASVC_PROFILE');
  return data.activeProfile || DEFAULT_PROFILE;
}

/** The nearest folder above `path` that exists. */
function nearestFolder(path: string): string {
  let folder = dirname(path);
  while (!existsSync(folder) && dirname(folder) !== folder) folder = dirname(folder);
  return folder;
}
