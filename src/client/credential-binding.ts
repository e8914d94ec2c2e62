import { UsageError } from '../errors.js';
import { redactUrl } from '../util/redact.js';
import type { Picked } from './resolve-settings.js';
import type { SettingSpec } from './settings.js';

/** Stands in for `{scope}` while a template is parsed: the placeholder is no valid host. */
const SCOPE_MARK = 'dasvc-scope-placeholder';

/**
 * A URL in the form that tells installations apart: scheme and host in lower case, no default
 * port, no trailing slash, no fragment (never sent). Undefined when it is no URL.
 */
export function installationUrl(url: string): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url.split('{scope}').join(SCOPE_MARK));
  } catch {
    return undefined;
  }
  const auth =
    parsed.username !== '' || parsed.password !== ''
      ? `${parsed.username}:${parsed.password}@`
      : '';
  const path = parsed.pathname.replace(/\/+$/, '');
  return `${parsed.protocol}//${auth}${parsed.host}${path}${parsed.search}`;
}

/** Whether two URLs name the same place of one installation (`http://A:80/` is `http://a`). */
export function sameInstallation(a: string, b: string): boolean {
  const canonical = installationUrl(a);
  return canonical !== undefined && canonical === installationUrl(b);
}

/** A base URL or endpoint given (flag, variable, prompt) that is not the one stored with a profile. */
export interface ForeignUrl {
  spec: SettingSpec;
  given: Picked;
  /** The profile's own URL for that setting; undefined when it stored none. */
  stored: string | undefined;
}

/** What a refusal protects: a logged-in profile's tokens (and secret), or its client secret alone. */
export type Withheld = 'tokens' | 'secret';

function from(picked: Picked, spec: SettingSpec): string {
  if (picked.source === 'env') return spec.env;
  if (picked.source === 'prompt') return 'typed at the prompt';
  return `${spec.flag} / option ${spec.key}`;
}

/**
 * The usage error (exit 2) of settings that would carry a profile's tokens or client secret to
 * another installation than the one they were stored with: both URLs, and the ways out.
 */
export function otherInstallation(
  profile: string | undefined,
  foreign: ForeignUrl,
  withheld: Withheld,
): UsageError {
  const { spec, given, stored } = foreign;
  const whose = profile === undefined ? 'the profile' : `profile ${profile}`;
  const there = redactUrl(given.value);
  const own = stored === undefined ? 'it stores none' : redactUrl(stored);
  const head = `the ${spec.label} ${there} (${from(given, spec)}) is not the one stored with ${whose} (${own})`;
  const message =
    withheld === 'tokens'
      ? `${head}, so nothing was sent: a profile's tokens and client secret go only to the installation that issued them. Use --profile NAME for a profile logged in there, dasvc login to log ${whose} in there, or DASVC_TOKEN with a token of that installation`
      : `${head}, so its stored client secret is not sent there. Give the client secret for that installation (--client-secret, DASVC_CLIENT_SECRET), or use --profile NAME for a profile of it`;
  return new UsageError(message, {
    code: 'other_installation',
    facts: {
      ...(profile === undefined ? {} : { profile }),
      setting: spec.key,
      given: there,
      source: given.source,
      stored: stored === undefined ? null : redactUrl(stored),
      withheld,
    },
  });
}
