import type { DasvcError } from '../errors.js';
import { activeProfileName, DEFAULT_PROFILE } from '../store/profile-store.js';
import type { EndedAccess, Profile, StoredTokens } from '../schemas/config-file.js';
import { secretsLocation, withoutSecrets } from '../store/profile-secrets.js';
import { endedHow } from '../store/token-store.js';
import type { ClientDeps } from './client-deps.js';
import { ResolvedSettings } from './resolve-settings.js';
import { missingProfile, notLoggedIn } from './session-errors.js';
import type { SessionDeps } from './session.js';
import type { SettingOptions } from './settings.js';

/** A profile as loaded: its name and settings; `stored`, as read, whose secrets may be loaded. */
interface Loaded {
  name: string;
  profile: Profile | undefined;
  stored?: Profile;
}

/**
 * The profile and session side of a client, which every operation shares: the settings given
 * (checked when the client is made), the profile they name (read on first use), its secrets when
 * something sends them, and its stored tokens, which stay with the installation that issued them.
 */
export class ProfileSession {
  readonly given: ResolvedSettings;
  private loaded: Loaded | undefined;
  /**
   * With `store: 'memory'`, the settings the last login used (prompted ones included): this
   * client's profile, kept in the client alone, so that refreshes and `status()` know them.
   */
  private memoryProfile: Profile | undefined;

  constructor(
    options: SettingOptions,
    readonly deps: ClientDeps,
  ) {
    this.given = ResolvedSettings.check(options, deps.env);
  }

  /**
   * The profile named (read once): option > DASVC_PROFILE > the file's active profile >
   * `default`; with `store: 'memory'`, its settings only, copied into this client.
   */
  load(): Loaded {
    if (!this.loaded) {
      const explicit = this.given.explicit('profile')?.value;
      if (!this.deps.profiles) {
        let name = explicit ?? DEFAULT_PROFILE;
        let stored: Profile | undefined;
        if (this.memoryProfile === undefined && this.deps.settingsFrom) {
          const data = this.deps.settingsFrom.read();
          name = activeProfileName(explicit, {}, data);
          stored = data.profiles?.[name];
          if (stored) this.memoryProfile = settingsOnly(stored);
        }
        this.loaded = { name, profile: this.memoryProfile, ...(stored ? { stored } : {}) };
      } else {
        const data = this.deps.profiles.read();
        const name = activeProfileName(explicit, {}, data);
        const stored = data.profiles?.[name];
        this.loaded = { name, profile: stored, ...(stored ? { stored } : {}) };
      }
    }
    return this.loaded;
  }

  /**
   * The profile with its client secret readable (the OS store asked, within its deadline), for
   * what sends it: a refresh, a revocation, a login. With `store: 'memory'` the secret is copied
   * into this client's settings.
   */
  async withSecrets(): Promise<{ name: string; profile: Profile | undefined }> {
    const loaded = this.load();
    const { stored, profile, name } = loaded;
    if (stored) {
      await (this.deps.profiles ?? this.deps.settingsFrom)?.loadSecrets(stored, name);
      if (profile !== stored && profile && profile.clientSecret === undefined) {
        const secret = stored.clientSecret;
        if (secret !== undefined) profile.clientSecret = secret;
      }
    }
    return loaded;
  }

  /**
   * After a login: with `store: 'memory'` its settings become this client's profile; either way
   * the next call reads the profile again.
   */
  loggedIn(settings: Profile): void {
    if (!this.deps.profiles) this.memoryProfile = settings;
    this.loaded = undefined;
  }

  /** The settings over the profile (read on first use), or over nothing when `withProfile` is false. */
  settings(withProfile = true): ResolvedSettings {
    // Without the profile the store is not read: a run given all it needs (--token and the
    // base URL in CI) does not depend on a config file it does not use.
    if (!withProfile) return this.given;
    const { name, profile } = this.load();
    return this.given.withProfile(profile, name);
  }

  /**
   * The profile's stored tokens, or not logged in (exit 3); refused (exit 2) before anything is
   * sent when the settings name another installation than the one that issued them.
   */
  async storedTokens(): Promise<StoredTokens> {
    const { name } = this.load();
    const tokens = await this.deps.tokens.load(name);
    if (!tokens) throw this.notLoggedIn();
    const refused = this.settings().otherInstallation('tokens');
    if (refused) throw refused;
    return tokens;
  }

  /** Not logged in, naming the profiles that exist when the one named is none of them. */
  private notLoggedIn(): DasvcError {
    return this.unknownProfile() ?? notLoggedIn(this.load().name);
  }

  /**
   * The error for a profile named (option, variable) that is none of those stored while others
   * are: most likely a typo. Undefined for a stored profile, or when none is stored.
   */
  unknownProfile(): DasvcError | undefined {
    const { name, profile } = this.load();
    if (profile !== undefined || !this.deps.profiles) return undefined;
    const named = this.given.explicit('profile');
    const namedBy =
      named === undefined ? undefined : named.source === 'env' ? 'DASVC_PROFILE' : '--profile';
    const missing = missingProfile(name, this.deps.profiles.read(), namedBy);
    return missing && notLoggedIn(name, missing);
  }

  /** How this profile's client ended `token` (replaced by a refresh, revoked), if it remembers. */
  async endedHere(token: string): Promise<EndedAccess | undefined> {
    try {
      return endedHow(await this.deps.tokens.load(this.load().name), token);
    } catch {
      // Only a better message is at stake: an unreadable store leaves the refusal as it is.
      return undefined;
    }
  }

  /** What the token session (refresh when due and after a 401, under the lock) needs. */
  session(): SessionDeps {
    const { name, profile } = this.load();
    return {
      tokens: this.deps.tokens,
      profile: name,
      send: this.deps.send,
      now: this.deps.now,
      refreshMargin: profile?.refreshMargin,
      tell: this.deps.tell,
      refreshSettings: async () => {
        await this.withSecrets();
        const settings = this.settings();
        const client = settings.client();
        const refreshUrl = settings.endpoint('refresh');
        return {
          client,
          refreshUrl,
          placement: settings.placement(),
          ownSession: profile === undefined || storedRefresh(profile, client.clientId, refreshUrl),
          secretFrom: settings.pick('clientSecret')?.source,
        };
      },
    };
  }
}

/**
 * A stored profile's settings, without its tokens (`store: 'memory'` starts with none) and without
 * asking the OS store: its client secret comes with withSecrets, when one is needed.
 */
function settingsOnly(profile: Profile): Profile {
  const settings = withoutSecrets(profile);
  if (secretsLocation(profile) === 'file' && profile.clientSecret !== undefined)
    settings.clientSecret = profile.clientSecret;
  delete settings.secrets;
  return settings;
}

/** Whether `clientId` at `refreshUrl` is the profile's own client and refresh endpoint. */
function storedRefresh(profile: Profile, clientId: string, refreshUrl: string): boolean {
  const stored = ResolvedSettings.check({}, {}).withProfile(profile);
  return stored.value('clientId') === clientId && stored.endpoints().refresh === refreshUrl;
}
