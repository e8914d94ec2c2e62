import type { SendFn } from '../http/types.js';
import { buildRevocationRequest, type TokenTypeHint } from '../oauth/token-request.js';
import { processRevocationResponse } from '../oauth/token-response.js';
import { clientRefused } from './client-refused.js';
import type { ResolvedSettings } from './resolve-settings.js';

/** A confirmed revocation: the body exactly as received, and parsed (null when empty, RFC 7009 §2.2). */
export interface RevokeAnswer {
  text: string;
  body: Record<string, unknown> | null;
}

/** Sends one revoke request (SERVICE.md §4.4) and returns the confirmed answer. */
export async function revokeToken(
  send: SendFn,
  settings: ResolvedSettings,
  token: string,
  hint: TokenTypeHint,
): Promise<RevokeAnswer> {
  const client = settings.client();
  const request = buildRevocationRequest({
    url: settings.endpoint('revoke'),
    client,
    placement: settings.placement(),
    token,
    hint,
  });
  const response = await send(request);
  try {
    const body = processRevocationResponse(response);
    return { text: response.text.trim(), body };
  } catch (error) {
    throw clientRefused(error, {
      profile: settings.profileName,
      clientId: client.clientId,
      secretFrom: settings.pick('clientSecret')?.source,
    });
  }
}
