import { DasvcError, sameKind } from '../../errors.js';

/**
 * Not logged in, in a command that also takes a token (`--token`, DASVC_TOKEN: a CI job with no
 * stored profile): the error carries that fact, so that its hint names that way in beside the login.
 */
export function withTokenWayIn(error: unknown): unknown {
  if (!(error instanceof DasvcError) || error.code !== 'not_logged_in') return error;
  return sameKind(error, error.message, { facts: { tokenWayIn: true } });
}
