import { AuthError, sameKind } from '../errors.js';
import type { SettingSource } from './resolve-settings.js';

/** Whose client credentials were sent, and where the secret came from. */
export interface ClientSent {
  profile: string | undefined;
  clientId: string;
  secretFrom: SettingSource | undefined;
}

/**
 * The service did not accept the client (`invalid_client`, RFC 6749 §5.2): the same error, with
 * the client id, the profile and where the secret came from, for the CLI's hint. Anything else
 * is returned as it is.
 */
export function clientRefused(error: unknown, sent: ClientSent): unknown {
  if (!(error instanceof AuthError) || error.code !== 'invalid_client') return error;
  const facts: Record<string, unknown> = { clientId: sent.clientId };
  if (sent.profile !== undefined) facts.profile = sent.profile;
  if (sent.secretFrom !== undefined) facts.secretFrom = sent.secretFrom;
  return sameKind(error, error.message, { facts, cause: error });
}
