import type { Profile } from '../schemas/config-file.js';
import type { ProfileSession } from './profile-session.js';
import { sessionStatus, type SessionStatus } from './status.js';

/** The session's state, never the tokens (SPEC §3 `token status`, SPEC §1 `client.status()`). */
export async function profileStatus(session: ProfileSession): Promise<SessionStatus> {
  const { name, profile } = session.load();
  const { deps } = session;
  const tokens = await deps.tokens.load(name);
  const memory = deps.profiles === undefined;
  // The session's own settings: the profile's (with `store: 'memory'`, those of the client's
  // login); before any login, the settings given, when they are valid (status never fails on
  // them: it reports, it does not call).
  const shown = profile ?? givenSettingsShown(session);
  return sessionStatus(name, shown, tokens, deps.now(), memory ? 'memory' : undefined);
}

/** The base URL, client id and scope given (options, variables), or nothing when one is bad. */
function givenSettingsShown(session: ProfileSession): Profile | undefined {
  try {
    const settings = session.settings();
    const shown: Profile = {};
    for (const key of ['baseUrl', 'clientId', 'scope'] as const) {
      const value = settings.value(key);
      if (value !== undefined) shown[key] = value;
    }
    return shown;
  } catch {
    return undefined;
  }
}
