import { UsageError } from '../../../errors.js';
import { normalizeBaseUrl, type ParamsPlacement } from '../../../oauth/endpoints.js';
import { normalizeScope } from '../../../oauth/authorization-url.js';
import type { CliDeps } from '../../context.js';
import { checkProfileName } from '../../../store/store-shape.js';
import { loadProfile } from '../../token-state.js';
import { forgetTokens } from '../../../client/session.js';

/** True when `check` accepts, else the message of the UsageError it throws. */
function problemOf(check: () => unknown): true | string {
  try {
    check();
    return true;
  } catch (error) {
    if (error instanceof UsageError) return error.message;
    throw error;
  }
}

/** A stored base URL as the settings read it (a hand-edited one may lack the normal form). */
function normalizedOrSelf(baseUrl: string | undefined): string | undefined {
  try {
    return baseUrl === undefined ? undefined : normalizeBaseUrl(baseUrl);
  } catch {
    return baseUrl;
  }
}

/** `dasvc init` (SPEC §3): asks for a profile's settings in a terminal and writes it; a usage error elsewhere. */
export async function run(_options: Record<string, never>, deps: CliDeps): Promise<void> {
  const prompter = deps.prompter;
  if (!prompter) {
    throw new UsageError('dasvc init is interactive and needs a terminal (and CI unset)', {
      code: 'not_interactive',
      hint: 'pass --base-url, --client-id, --client-secret and --scope (or their DASVC_* variables) to dasvc login instead',
    });
  }
  const view = loadProfile(deps);
  // A bad answer is said under its question, which is asked again.
  const name = checkProfileName(
    (
      await prompter.input('Profile name:', {
        default: view.name,
        validate: (value) =>
          problemOf(() => checkProfileName(value.trim() || view.name, 'profile name')),
      })
    ).trim() || view.name,
    'profile name',
  );
  const existing = view.data.profiles?.[name] ?? {};
  await deps.store.loadSecrets(view.data.profiles?.[name], name);
  const baseUrl = normalizeBaseUrl(
    await prompter.input('Base URL of the installation:', {
      default: existing.baseUrl,
      validate: (value) => problemOf(() => normalizeBaseUrl(value)),
    }),
  );
  const clientId = (
    await prompter.input('Client id:', {
      default: existing.clientId,
      // An empty answer is the default (@inquirer/prompts); spaces alone are no client id.
      validate: (value) => value.trim() !== '' || 'a client id is needed',
    })
  ).trim();
  // Endpoint URLs stored at a login belong to its base URL (or, without one, to the endpoint
  // flags it was given), tokens and the client secret to its installation and client.
  const installed = existing.baseUrl !== undefined || existing.endpoints !== undefined;
  const moved = installed && normalizedOrSelf(existing.baseUrl) !== baseUrl;
  const otherClient = existing.clientId !== undefined && existing.clientId !== clientId;
  // The stored secret is the stored client's at the stored installation: neither another client
  // id nor another base URL inherits it.
  const keptSecret = moved || otherClient ? undefined : existing.clientSecret;
  const secret = (
    await prompter.input(
      keptSecret ? 'Client secret (empty keeps the stored one):' : 'Client secret:',
      { secret: true },
    )
  ).trim();
  const scope = normalizeScope(
    await prompter.input('Scope (space-separated instance IDs):', {
      default: existing.scope,
      validate: (value) =>
        normalizeScope(value || existing.scope || '') !== '' || 'name at least one instance',
    }),
  );
  const params = await prompter.select<ParamsPlacement>(
    'Where do the OAuth parameters go?',
    ['query', 'body'],
    existing.params ?? 'query',
  );
  // A new profile's client secret goes where its tokens will: the OS store when it answers.
  const { chooseSecretsLocation, fileFallbackMessage } =
    await import('../../../store/profile-secrets.js');
  const where =
    existing.secrets === undefined
      ? await chooseSecretsLocation(deps.store.keychain, name)
      : { location: existing.secrets };
  if (where.unavailable !== undefined)
    deps.out.warn(fileFallbackMessage(name, where.unavailable, deps.store.file));
  // With another base URL or client id the old ones would send every request to the old
  // installation. The tokens go first: a profile that names the new installation never holds
  // the old one's tokens, even if writing it fails.
  if ((moved || otherClient) && (await deps.tokens.load(name))) {
    await forgetTokens(deps.tokens, name, 'all');
    const were = moved
      ? (existing.baseUrl ?? 'the endpoints given at login')
      : `client ${existing.clientId}`;
    deps.out.warn(`The tokens stored for ${were} are forgotten here (not revoked there).`);
  }
  await deps.store.update((data) => {
    const profiles = (data.profiles ??= {});
    const profile = {
      ...profiles[name],
      secrets: where.location,
      baseUrl,
      clientId,
      clientSecret: secret || keptSecret,
      scope,
      params,
    };
    if (moved) delete profile.endpoints;
    profiles[name] = profile;
  }, name);
  if (deps.out.json) deps.out.result({ profile: name, baseUrl, clientId, scope, params });
  deps.out.success(
    `Wrote profile ${name}; next: dasvc login${name === view.name ? '' : ` --profile ${name}`}`,
  );
}
