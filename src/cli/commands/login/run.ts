import { UsageError } from '../../../errors.js';
import { createInterface } from 'node:readline';
import { DEFAULT_LOGIN_TIMEOUT_MS, runLoginFlow } from '../../../oauth/login-flow.js';
import { normalizeBaseUrl } from '../../../oauth/endpoints.js';
import { normalizeScope } from '../../../oauth/authorization-url.js';
import { parseDuration } from '../../../util/duration.js';
import { parsePort } from '../../port.js';
import type { CliDeps } from '../../context.js';
import type { LoginOptions } from './command.js';
import {
  endpointOrMissing,
  pickSetting,
  requireSetting,
  resolveEndpoints,
  resolvePlacement,
  SETTINGS,
} from '../../settings.js';
import { describeExpiry, loadProfile, sessionSummary, tokenStateJson } from '../../token-state.js';

/** `dasvc login` (SPEC §3): resolve settings, run the flow, store the profile, report (never the tokens). */
export async function run(options: LoginOptions, deps: CliDeps): Promise<void> {
  const flags = options;
  const view = loadProfile(deps);
  const { profile } = view;
  const port = flags.port === undefined ? 0 : parsePort(String(flags.port));
  const timeoutSeconds =
    flags.timeout === undefined
      ? DEFAULT_LOGIN_TIMEOUT_MS / 1000
      : parseDuration(String(flags.timeout), '--timeout');
  // Checked before any work: a zero time limit would start a login that gives up at once.
  if (!(timeoutSeconds > 0))
    throw new UsageError(
      `--timeout must be more than 0 seconds, got ${JSON.stringify(flags.timeout)}`,
      { code: 'bad_duration' },
    );
  const refreshMargin =
    flags.refreshMargin === undefined
      ? profile?.refreshMargin
      : parseDuration(String(flags.refreshMargin), '--refresh-margin');
  const explicitEndpoints =
    pickSetting(SETTINGS.authorizeUrl, flags, deps.env, undefined) &&
    pickSetting(SETTINGS.tokenUrl, flags, deps.env, undefined);
  const rawBase = explicitEndpoints
    ? pickSetting(SETTINGS.baseUrl, flags, deps.env, profile)?.value
    : await requireSetting(SETTINGS.baseUrl, flags, deps.env, profile, deps.prompter);
  const baseUrl = rawBase === undefined ? undefined : normalizeBaseUrl(rawBase);
  const clientId = await requireSetting(SETTINGS.clientId, flags, deps.env, profile, deps.prompter);
  const clientSecret = await requireSetting(
    SETTINGS.clientSecret,
    flags,
    deps.env,
    profile,
    deps.prompter,
  );
  const scope = normalizeScope(
    await requireSetting(SETTINGS.scope, flags, deps.env, profile, deps.prompter),
  );
  const endpoints = resolveEndpoints(baseUrl, flags, deps.env, profile);
  const placement = resolvePlacement(flags, deps.env, profile);

  const lines =
    flags.browser === false
      ? createInterface({ input: process.stdin, terminal: false })
      : undefined;
  let result;
  try {
    result = await runLoginFlow(
      {
        authorizeUrl: endpointOrMissing(endpoints, 'authorize'),
        tokenUrl: endpointOrMissing(endpoints, 'token'),
        client: { clientId, clientSecret },
        scope,
        placement,
        port,
        pkce: flags.pkce !== false,
        timeoutMs: timeoutSeconds * 1000,
      },
      {
        send: deps.send,
        now: deps.now,
        tell: (message) => deps.out.info(message),
        openBrowser: flags.browser === false ? undefined : deps.openBrowser,
        pasted: lines,
        signal: deps.signal,
      },
    );
  } finally {
    lines?.close();
    if (lines) process.stdin.destroy();
  }
  const tokens = result.tokens;
  const { chooseSecretsLocation, withoutSecrets } =
    await import('../../../store/profile-secrets.js');
  const where = await chooseSecretsLocation(
    deps.store.keychain,
    view.name,
    flags.insecureStorage === true,
  );
  // Said by the login that stores them, once; later commands find them in the file (SPEC §9).
  if (where.unavailable !== undefined)
    deps.out.warn(
      `The OS credential store is not available (${where.unavailable}): the tokens and client secret of profile ${view.name} are kept in ${deps.store.file} (mode 0600).`,
    );
  const saved = await deps.store.update((data) => {
    const profiles = (data.profiles ??= {});
    profiles[view.name] = {
      ...withoutSecrets(profiles[view.name]),
      secrets: where.location,
      baseUrl,
      clientId,
      clientSecret,
      scope,
      endpoints,
      params: placement,
      ...(refreshMargin === undefined ? {} : { refreshMargin }),
      tokens,
    };
    // The active profile is chosen by `dasvc profile use` alone (SPEC §2: else `default`).
  });
  const stored = saved.profiles![view.name]!;
  const now = deps.now();
  // The result on stdout, the narration on stderr (SPEC §3); never the tokens.
  if (deps.out.json) deps.out.result(tokenStateJson(view.name, stored, tokens, now));
  else deps.out.line(sessionSummary(view.name, stored, tokens, now));
  // On a terminal the summary above is already in front of the person: said once (issue 9.11).
  const said = !deps.out.json && deps.out.stdout.isTTY === true;
  deps.out.success(
    said
      ? 'Logged in'
      : `Logged in: profile ${view.name}, scope "${scope}", access token ${describeExpiry(tokens, now)}`,
  );
}
