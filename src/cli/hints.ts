import type { DasvcError } from '../errors.js';
import { DEFAULT_PROFILE } from '../store/profile-store.js';

/** The command that logs a profile in. */
export function loginHint(profile: string): string {
  return profile === DEFAULT_PROFILE ? 'dasvc login' : `dasvc login --profile ${profile}`;
}

/** Hints that depend on the code alone. */
const BY_CODE: Record<string, string> = {
  login_timeout: 'run dasvc login again (use --timeout SECONDS for more time)',
  state_mismatch: 'start again with dasvc login; if this repeats, someone may be forging redirects',
};

const SESSION_CODES = new Set([
  'not_logged_in',
  'revoked',
  'expired',
  'invalid_grant',
  'not_refreshable',
  'no_stored_token',
]);

/**
 * The next step for a person, under the message (SPEC §4): made here, in the CLI, from the error's
 * stable code and detail; the client and the protocol code carry no terminal advice.
 */
export function hintFor(error: DasvcError): string | undefined {
  if (error.hint) return error.hint;
  if (error.code !== undefined && Object.hasOwn(BY_CODE, error.code)) return BY_CODE[error.code];
  const detail = (
    typeof error.detail === 'object' && error.detail !== null ? error.detail : {}
  ) as {
    profile?: unknown;
    scope?: unknown;
  };
  if (
    error.code !== undefined &&
    SESSION_CODES.has(error.code) &&
    typeof detail.profile === 'string'
  )
    return loginHint(detail.profile);
  if (
    (error.code === 'invalid_token' || error.code === 'insufficient_scope') &&
    typeof detail.scope === 'string'
  )
    return `dasvc login --scope ${detail.scope}`;
  return undefined;
}
