import type { SendFn } from '../http/types.js';
import type { ParamsPlacement } from '../oauth/endpoints.js';
import {
  buildRevocationRequest,
  type ClientCredentials,
  type TokenTypeHint,
} from '../oauth/token-request.js';
import { processRevocationResponse } from '../oauth/token-response.js';
import type { Profile } from '../store/profile-store.js';
import type { CliDeps } from './context.js';
import {
  endpointOrMissing,
  resolveClient,
  resolveEndpoints,
  resolvePlacement,
  type FlagValues,
} from './settings.js';
import { baseUrlOf } from './token-state.js';

/** Settings of one revoke call. */
export interface RevokeTarget {
  url: string;
  client: ClientCredentials;
  placement: ParamsPlacement;
}

/** A confirmed revocation: the body exactly as received, and parsed (null when empty, RFC 7009 §2.2). */
export interface RevokeAnswer {
  text: string;
  body: Record<string, unknown> | null;
}

/** Sends one revoke request (SERVICE.md §4.4) and returns the confirmed answer. */
export async function revokeToken(
  send: SendFn,
  target: RevokeTarget,
  token: string,
  hint: TokenTypeHint,
): Promise<RevokeAnswer> {
  const response = await send(buildRevocationRequest({ ...target, token, hint }));
  const body = processRevocationResponse(response);
  return { text: response.text.trim(), body };
}

/** Revoke URL, client and placement, flag > env > profile. */
export function revokeTarget(
  options: FlagValues,
  deps: CliDeps,
  profile: Profile | undefined,
): RevokeTarget {
  const endpoints = resolveEndpoints(baseUrlOf(options, deps, profile), options, deps.env, profile);
  return {
    url: endpointOrMissing(endpoints, 'revoke'),
    client: resolveClient(options, deps.env, profile),
    placement: resolvePlacement(options, deps.env, profile),
  };
}
