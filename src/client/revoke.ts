import { DasvcError } from '../errors.js';
import type { SendFn } from '../http/types.js';
import { buildRevocationRequest, type TokenTypeHint } from '../oauth/token-request.js';
import { processRevocationResponse } from '../oauth/token-response.js';
import { clientRefused } from './client-refused.js';
import type { ClientDeps } from './client-deps.js';
import type { ResolvedSettings } from './resolve-settings.js';
import { usableAccessToken } from './session.js';

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

/**
 * Forgets a profile's tokens once its pair (`revoked`, the refresh token revoked at the service)
 * is revoked. Under the lock: a newer pair that a refresh in another process stored meanwhile is
 * revoked first, else it would live on at the service, known to no one. A failure there keeps it
 * (and is thrown) unless `forget`: it is then returned, for the outcome to say.
 */
export async function forgetRevokedPair(
  deps: Pick<ClientDeps, 'send' | 'tokens'>,
  settings: ResolvedSettings | undefined,
  profile: string,
  revoked: string | null,
  forget: boolean,
): Promise<DasvcError | undefined> {
  let missed: DasvcError | undefined;
  await deps.tokens.update(profile, async (stored, save) => {
    if (stored && settings && stored.refreshToken !== revoked) {
      const newer = [
        ['access_token', usableAccessToken(stored)],
        ['refresh_token', stored.refreshToken],
      ] as const;
      for (const [kind, token] of newer) {
        if (token)
          await revokeToken(deps.send, settings, token, kind).catch((error: unknown) => {
            if (!forget || !(error instanceof DasvcError)) throw error;
            missed ??= error;
          });
      }
    }
    await save(undefined);
  });
  return missed;
}
