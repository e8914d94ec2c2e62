import { AuthError, sameKind, ServiceError, type DasvcError } from '../errors.js';
import { apiUrlFor, checkScopeId } from '../oauth/endpoints.js';
import { buildApiRequest, processApiResponse, type ApiAnswer } from '../rpc/jsonrpc.js';
import type { ProfileSession } from './profile-session.js';
import { currentTokens, recordRefusedAccess } from './session.js';

/**
 * Sends one JSON-RPC body (a call or a batch) to the scope's API URL (SERVICE.md §4.5) with the
 * explicit token (no store), or the stored one refreshed when due; when the API answers 401 to
 * a token that can be refreshed, refreshes once and sends once more (SPEC §3).
 */
export async function sendApi(
  profile: ProfileSession,
  scope: string,
  body: unknown,
): Promise<ApiAnswer> {
  // A scope that can name no instance is a usage error before anything is loaded or sent.
  checkScopeId(scope);
  const { given, deps } = profile;
  const explicit = given.explicit('token')?.value;
  const needProfile =
    explicit === undefined || (!given.explicit('apiUrl') && !given.explicit('baseUrl'));
  if (explicit === undefined) await profile.storedTokens();
  const settings = await profile.settings(needProfile).prompted({ endpoint: 'api' }, deps.prompter);
  const url = apiUrlFor(settings.endpoint('api'), scope);
  const call = async (token: string): Promise<ApiAnswer> =>
    processApiResponse(await deps.send(buildApiRequest(url, token, body)), scope, body);
  if (explicit !== undefined) {
    try {
      return await call(explicit);
    } catch (error) {
      // A refused token given as an option or variable: that is what to fix.
      const from = given.explicit('token')?.source === 'env' ? 'DASVC_TOKEN' : '--token';
      const ended =
        error instanceof AuthError && error.status === 401
          ? await profile.endedHere(explicit)
          : undefined;
      if (!ended) throw refusedToken(error, { scope, tokenFrom: from });
      const how = ended.how === 'replaced' ? 'replaced by a refresh' : 'revoked';
      const { name } = profile.load();
      throw refusedToken(
        error,
        { scope, tokenFrom: from, profile: name, ended: ended.how },
        `${(error as Error).message}: it is an access token that profile ${name} ${how} at ${new Date(ended.at).toISOString()}`,
      );
    }
  }
  const session = profile.session();
  const { tokens } = await currentTokens(session);
  const { name, profile: stored } = profile.load();
  // The profile's scope as stored, for a hint that keeps it; never changed here.
  const about = { scope, profile: name, granted: stored?.scope ?? '' };
  try {
    return await call(tokens.accessToken);
  } catch (error) {
    if (!(error instanceof AuthError) || error.status !== 401) throw refusedToken(error, about);
    if (tokens.refreshToken === null) {
      await recordRefusedAccess(session, tokens.accessToken);
      throw refusedToken(error, about);
    }
    let retry;
    try {
      retry = await currentTokens(session, { rejected: tokens.accessToken });
    } catch (refresh) {
      // A refresh the service refused (any OAuth or 4xx error) is told after the 401 it
      // followed (log in again); a client it did not accept, and anything else (5xx, the
      // network, a setting, Ctrl-C, a bug), is that failure, with its own exit code (SPEC §4).
      const refused =
        (refresh instanceof AuthError && refresh.code !== 'invalid_client') ||
        (refresh instanceof ServiceError && (refresh.status ?? 0) < 500);
      if (!refused) throw refresh;
      const then =
        (refresh as DasvcError).code === 'invalid_grant'
          ? refresh.message
          : `the refresh that followed was refused too (${refresh.message})`;
      throw refusedToken(error, about, `${(error as Error).message}, and ${then}`);
    }
    try {
      return await call(retry.tokens.accessToken);
    } catch (again) {
      throw refusedToken(again, about);
    }
  }
}

/**
 * An API refusal of the token (HTTP 401/403), or an unknown instance (404), with what the CLI
 * needs for its hint (SPEC §4): the scope asked for, and where the token came from or which
 * profile (and stored scope) it is; `message` tells what followed (a refused refresh).
 */
function refusedToken(error: unknown, facts: Record<string, string>, message?: string): unknown {
  // An unknown instance: the hint lists the scopes the profile holds.
  if (error instanceof ServiceError && error.code === 'http_404')
    return sameKind(error, error.message, { facts, cause: error });
  if (!(error instanceof AuthError) || (error.status !== 401 && error.status !== 403)) return error;
  return sameKind(error, message ?? error.message, { facts, cause: error });
}
