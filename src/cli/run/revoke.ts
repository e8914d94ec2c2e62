import type { SendFn } from '../../http/types.js';
import type { ParamsPlacement } from '../../oauth/endpoints.js';
import {
  buildRevocationRequest,
  type ClientCredentials,
  type TokenTypeHint,
} from '../../oauth/token-request.js';
import { processRevocationResponse } from '../../oauth/token-response.js';

/** Settings of one revoke call. */
export interface RevokeTarget {
  url: string;
  client: ClientCredentials;
  placement: ParamsPlacement;
}

/** Sends one revoke request (SERVICE.md §4.4) and returns the confirmed body. */
export async function revokeToken(
  send: SendFn,
  target: RevokeTarget,
  token: string,
  hint: TokenTypeHint,
): Promise<unknown> {
  return processRevocationResponse(await send(buildRevocationRequest({ ...target, token, hint })));
}
