import type { ClientCredentials } from '../oauth/token-request.js';
import { defaultEndpoints, type Endpoints, type ParamsPlacement } from '../oauth/endpoints.js';
import type { Profile } from '../schemas/config-file.js';
import {
  checkSetting,
  ENDPOINT_SETTINGS,
  missingSetting,
  SETTINGS,
  type SettingKey,
  type SettingOptions,
  type SettingSpec,
} from './settings.js';
import type { Env } from '../util/env.js';
import { redactUrl } from '../util/redact.js';
import {
  otherInstallation,
  sameInstallation,
  type ForeignUrl,
  type Withheld,
} from './credential-binding.js';

/** Where a value came from: an option (a CLI flag or a library option), the variable, the profile. */
export type SettingSource = 'option' | 'env' | 'profile' | 'prompt';

/** A resolved value and where it came from. */
export interface Picked {
  value: string;
  source: SettingSource;
}

/** Asks for a missing setting on a terminal (SPEC §2); the CLI passes one only when interactive. */
export interface Prompter {
  input(
    message: string,
    options?: {
      secret?: boolean;
      default?: string;
      /** True for an acceptable answer, else why not: said under the question, which is asked again. */
      validate?: (value: string) => true | string;
    },
  ): Promise<string>;
  select<T extends string>(message: string, choices: readonly T[], defaultValue?: T): Promise<T>;
}

type Given = Partial<Record<SettingKey, Picked>>;

function givenValue(spec: SettingSpec, options: SettingOptions, env: Env): Picked | undefined {
  const option = (options as Record<string, unknown>)[spec.key];
  if (option !== undefined && (option !== '' || spec.emptyRefused)) {
    return { value: checkSetting(spec, option), source: 'option' };
  }
  const fromEnv = env[spec.env];
  if (fromEnv) return { value: checkSetting(spec, fromEnv), source: 'env' };
  return undefined;
}

/**
 * Every setting of SPEC §2, option > variable > profile, each value checked by the table. Options
 * and variables are all checked when this is made, before any work: a bad value is a usage error
 * even for a command that would not have read it, and even when not logged in.
 */
export class ResolvedSettings {
  private constructor(
    private readonly given: Given,
    readonly profile: Profile | undefined,
    /** The profile's name, for messages. */
    readonly profileName?: string,
  ) {}

  /** Checks every option and variable (SPEC §2); throws the usage error of the first bad one. */
  static check(options: SettingOptions, env: Env): ResolvedSettings {
    const given: Given = {};
    for (const spec of Object.values(SETTINGS)) {
      const picked = givenValue(spec, options, env);
      if (picked) given[spec.key as SettingKey] = picked;
    }
    return new ResolvedSettings(given, undefined);
  }

  /** The same options and variables over a profile's stored settings. */
  withProfile(profile: Profile | undefined, name?: string): ResolvedSettings {
    return new ResolvedSettings(this.given, profile, name);
  }

  /** The same settings with a base URL answered at the prompt. */
  withBaseUrl(baseUrl: string | undefined): ResolvedSettings {
    if (baseUrl === undefined) return this;
    return new ResolvedSettings(
      { ...this.given, baseUrl: { value: baseUrl, source: 'prompt' } },
      this.profile,
      this.profileName,
    );
  }

  /**
   * The first base URL or endpoint given (option, variable, prompt) that is not the profile's
   * own: the one it resolves to with nothing given. A profile's tokens and client secret go only
   * to the installation they were stored with (credential-binding.ts).
   */
  foreignUrl(): ForeignUrl | undefined {
    if (!this.profile) return undefined;
    const own = new ResolvedSettings({}, this.profile);
    const endpoints = own.endpoints();
    const urls: [SettingSpec, string | undefined][] = [
      [SETTINGS.baseUrl, own.value('baseUrl')],
      ...ENDPOINT_SETTINGS.map(([name, spec]): [SettingSpec, string | undefined] => [
        spec,
        endpoints[name],
      ]),
    ];
    for (const [spec, stored] of urls) {
      const given = this.given[spec.key as SettingKey];
      if (given && (stored === undefined || !sameInstallation(given.value, stored)))
        return { spec, given, stored };
    }
    return undefined;
  }

  /** The usage error of settings that name another installation than the profile's, if they do. */
  otherInstallation(withheld: Withheld) {
    const foreign = this.foreignUrl();
    return foreign && otherInstallation(this.profileName, foreign, withheld);
  }

  /** The stored client secret is withheld: it is the profile's installation's, not the one given. */
  private secretWithheld(key: SettingKey): boolean {
    return key === 'clientSecret' && !this.given.clientSecret && this.foreignUrl() !== undefined;
  }

  /**
   * These settings with what `needs` lacks asked on the terminal (SPEC §2: flag > variable >
   * profile > prompt > error): the base URL when the endpoint cannot be made without it, and the
   * client id and secret. Without a prompter (no TTY, CI), nothing is asked and nothing changes:
   * the usage error naming flag and variable comes where the value is read.
   */
  async prompted(
    needs: { endpoint?: keyof Endpoints; client?: boolean },
    prompter: Prompter | undefined,
  ): Promise<ResolvedSettings> {
    if (!prompter) return this;
    const given: Given = { ...this.given };
    const answer = async (key: SettingKey) => {
      if (this.pick(key)) return;
      given[key] = { value: await this.ask(key, prompter), source: 'prompt' };
    };
    if (needs.endpoint && this.endpoints()[needs.endpoint] === undefined) await answer('baseUrl');
    if (needs.client) {
      await answer('clientId');
      await answer('clientSecret');
    }
    return new ResolvedSettings(given, this.profile, this.profileName);
  }

  /** A value given by option or variable alone, ignoring the profile. */
  explicit(key: SettingKey): Picked | undefined {
    return this.given[key];
  }

  /** option > variable > profile; empty strings count as unset. */
  pick(key: SettingKey): Picked | undefined {
    const given = this.given[key];
    if (given) return given;
    if (this.secretWithheld(key)) return undefined;
    const stored = (this.profile as Record<string, unknown> | undefined)?.[key];
    if (typeof stored === 'string' && stored !== '')
      return { value: checkSetting(SETTINGS[key], stored), source: 'profile' };
    return undefined;
  }

  value(key: SettingKey): string | undefined {
    return this.pick(key)?.value;
  }

  /** A required value, or the usage error naming the flag and the variable. */
  require(key: SettingKey): string {
    const found = this.pick(key);
    if (found) return found.value;
    throw this.missing(key);
  }

  /** Why a required value is missing: unset, or the stored secret withheld from another installation. */
  private missing(key: SettingKey) {
    const withheld = this.secretWithheld(key) && this.storesSecret();
    return (withheld && this.otherInstallation('secret')) || missingSetting(SETTINGS[key]);
  }

  /** Whether the profile holds a client secret; one in an OS store out of reach counts. */
  private storesSecret(): boolean {
    try {
      return this.profile?.clientSecret !== undefined;
    } catch {
      return true;
    }
  }

  /** A required value, asked for on the terminal when a prompter is given (SPEC §2 order). */
  async ask(key: SettingKey, prompter: Prompter | undefined): Promise<string> {
    const found = this.pick(key);
    if (found) return found.value;
    const spec: SettingSpec = SETTINGS[key];
    if (prompter) {
      // The stored secret is another installation's: say whose is asked for.
      const foreign = this.secretWithheld(key) ? this.foreignUrl() : undefined;
      const label = `${spec.label[0]!.toUpperCase()}${spec.label.slice(1)}`;
      const forWhom = foreign ? ` for ${redactUrl(foreign.given.value)}` : '';
      const answer = (await prompter.input(`${label}${forWhom}:`, { secret: spec.secret })).trim();
      if (answer !== '') return checkSetting(spec, answer);
    }
    throw this.missing(key);
  }

  /** Parameter placement: option > variable > profile > `query` (SERVICE.md §4 default). */
  placement(): ParamsPlacement {
    return (this.value('params') as ParamsPlacement | undefined) ?? 'query';
  }

  /** Client credentials, or the usage error naming what is missing. */
  client(): ClientCredentials {
    return { clientId: this.require('clientId'), clientSecret: this.require('clientSecret') };
  }

  /**
   * Endpoint URLs: option > variable > the profile's stored URL > default from the base URL
   * (SERVICE.md §4). Stored URLs belong to the stored base URL, so they are ignored when another
   * base URL is given.
   */
  endpoints(): Partial<Endpoints> {
    const baseUrl = this.value('baseUrl');
    const defaults = baseUrl === undefined ? undefined : defaultEndpoints(baseUrl);
    const storedBase = this.profile?.baseUrl;
    const sameBase =
      baseUrl !== undefined &&
      storedBase !== undefined &&
      sameInstallation(checkSetting(SETTINGS.baseUrl, storedBase), baseUrl);
    const stored = baseUrl === undefined || sameBase ? (this.profile?.endpoints ?? {}) : {};
    const out: Partial<Endpoints> = {};
    for (const [name, spec] of ENDPOINT_SETTINGS) {
      const explicit = this.given[spec.key as SettingKey]?.value;
      const storedUrl = stored[name];
      const value =
        explicit ?? (storedUrl === undefined ? undefined : checkSetting(spec, storedUrl));
      const chosen = value ?? defaults?.[name];
      if (chosen !== undefined) out[name] = chosen;
    }
    return out;
  }

  /** One endpoint URL, or the usage error naming the base URL and the endpoint's own setting. */
  endpoint(name: keyof Endpoints): string {
    const url = this.endpoints()[name];
    if (url !== undefined) return url;
    const spec = ENDPOINT_SETTINGS.find(([n]) => n === name)![1];
    throw missingSetting(SETTINGS.baseUrl, spec);
  }
}
