import { mkdirSync, readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { UsageError } from '../errors.js';
import type { Endpoints, ParamsPlacement } from '../oauth/endpoints.js';
import type { TokenSet } from '../oauth/token-response.js';
import { Keychain } from './keychain.js';
import { attachSecrets, storeSecrets, type SecretsLocation } from './profile-secrets.js';
import { checkProfileName, storeShapeProblem } from './store-shape.js';

/**
 * Tokens as stored: a TokenSet whose access token may be gone. After `token revoke` of the access
 * token alone, `accessToken` is null and `accessRevoked` true, while `expiresAt` keeps the revoked
 * token's expiry: a refresh stays possible until then (SERVICE.md §4.3).
 */
export interface StoredTokens extends Omit<TokenSet, 'accessToken'> {
  accessToken: string | null;
  accessRevoked?: boolean;
}

/** One named profile (SPEC §2): where to log in, as whom, and the tokens with their absolute expiry. */
export interface Profile {
  baseUrl?: string;
  clientId?: string;
  clientSecret?: string;
  scope?: string;
  /** Endpoint URLs as used at login (the defaults from baseUrl, or the overrides given). */
  endpoints?: Partial<Endpoints>;
  params?: ParamsPlacement;
  /** Seconds before expiry to refresh; absent → max(60 s, 10 % of lifetime). */
  refreshMargin?: number;
  tokens?: StoredTokens;
  /** Where `clientSecret` and `tokens` live (SPEC §9); absent: the file (profiles before 0.2). */
  secrets?: SecretsLocation;
}

/** The whole config file. Unknown members are kept as they are. */
export interface StoreData {
  activeProfile?: string;
  profiles?: Record<string, Profile>;
  [other: string]: unknown;
}

/** Default profile name (SPEC §2). */
export const DEFAULT_PROFILE = 'default';

/**
 * Profiles and tokens on disk. Reads parse the file directly (fast: the `rpc` hot path never loads
 * `conf`); writes go through `conf` (atomic write, mode 0600) under the lock file beside the store,
 * each one a read-modify-write of the file as it is at that moment.
 */
export class ProfileStore {
  readonly lockPath: string;
  /** Told once when the lock has been held by another process for 1 s (the CLI: stderr). */
  onLockWait?: (message: string) => void;

  private keychainInstance: Keychain | undefined;

  constructor(readonly file: string) {
    this.lockPath = `${file}.lock`;
  }

  /** The OS credential store's entries of this config file (SPEC §9); nothing loads until used. */
  get keychain(): Keychain {
    return (this.keychainInstance ??= new Keychain(this.file));
  }

  /**
   * The file's content, the secrets of `secrets: 'keychain'` profiles read from the OS store when
   * first accessed (profile-secrets.ts). A missing file is empty. One that is not JSON or not of
   * the shape dasvc writes is a UsageError naming it, and is never replaced.
   */
  read(): StoreData {
    const data = this.readFile();
    attachSecrets(data, () => this.keychain);
    return data;
  }

  /** The file alone, as it is on disk. */
  private readFile(): StoreData {
    let text: string;
    try {
      text = readFileSync(this.file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {};
      throw new UsageError(`cannot read config file ${this.file}: ${(error as Error).message}`, {
        code: 'config_unreadable',
      });
    }
    let data: unknown;
    try {
      data = JSON.parse(text);
    } catch (error) {
      throw new UsageError(
        `config file ${this.file} is not valid JSON (${(error as Error).message}); fix or remove it`,
        {
          code: 'config_corrupt',
        },
      );
    }
    const problem = storeShapeProblem(data);
    if (problem !== undefined) {
      throw new UsageError(`config file ${this.file} is corrupt: ${problem}; fix or remove it`, {
        code: 'config_corrupt',
      });
    }
    const store = data as StoreData;
    return store;
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
    return withFileLock(this.lockPath, fn, this.onLockWait ? { onWait: this.onLockWait } : {});
  }

  /** Read-modify-write under the lock; `change` edits the data in place. Returns the written data. */
  async update(change: (data: StoreData) => void): Promise<StoreData> {
    return this.locked(async () => {
      const data = this.read();
      change(data);
      await this.writeUnlocked(data);
      return data;
    });
  }

  /** Writes the whole file through conf (atomic, mode 0600). Callers hold the lock. */
  async writeUnlocked(data: StoreData): Promise<void> {
    (await this.openWriter())(data);
  }

  /**
   * Loads and opens everything a write needs, and returns the write itself: synchronous, so that a
   * caller holding the lock can store a rotated token pair as the very first thing after the answer
   * arrives (issue 14.3: a kill in between must not lose the session).
   */
  async openWriter(): Promise<(data: StoreData) => void> {
    this.ensureDir();
    const { default: Conf } = await import('conf');
    let conf: InstanceType<typeof Conf<StoreData>>;
    try {
      conf = new Conf<StoreData>({
        cwd: dirname(this.file),
        configName: this.file.replace(/^.*[\\/]/, '').replace(/\.json$/, ''),
        configFileMode: 0o600,
        clearInvalidConfig: false,
        accessPropertiesByDotNotation: false,
        projectName: 'dasvc',
      });
    } catch (error) {
      throw this.unwritable(error);
    }
    return (data) => {
      // First the OS store (its errors are its own), then the file without the secrets.
      const fileData = storeSecrets(data, this.readFile(), () => this.keychain);
      try {
        conf.store = fileData;
      } catch (error) {
        throw this.unwritable(error);
      }
    };
  }

  private unwritable(error: unknown): UsageError {
    return new UsageError(`cannot write config file ${this.file}: ${(error as Error).message}`, {
      code: 'config_unwritable',
    });
  }

  private ensureDir(): void {
    try {
      mkdirSync(dirname(this.file), { recursive: true, mode: 0o700 });
    } catch (error) {
      throw new UsageError(
        `cannot create config directory ${dirname(this.file)}: ${(error as Error).message}`,
        {
          code: 'config_unwritable',
        },
      );
    }
  }
}

/** Which profile a command uses: `--profile` > `DASVC_PROFILE` > the file's active profile > `default`. */
export function activeProfileName(
  flag: string | undefined,
  env: NodeJS.ProcessEnv,
  data: StoreData,
): string {
  if (flag !== undefined) return checkProfileName(flag, '--profile');
  if (env.DASVC_PROFILE) return checkProfileName(env.DASVC_PROFILE, 'DASVC_PROFILE');
  return data.activeProfile || DEFAULT_PROFILE;
}
