import { createInterface } from 'node:readline';
import { DEFAULT_LOGIN_TIMEOUT_MS, runLoginFlow } from '../../oauth/login-flow.js';
import { normalizeBaseUrl } from '../../oauth/endpoints.js';
import { normalizeScope } from '../../oauth/authorization-url.js';
import { parseDuration } from '../../util/duration.js';
import { parsePort } from '../port.js';
import type { CliContext } from '../context.js';
import {
  endpointOrMissing,
  pickSetting,
  requireSetting,
  resolveEndpoints,
  resolvePlacement,
  SETTINGS,
} from '../settings.js';
import { describeExpiry, loadProfile, sessionSummary, tokenStateJson } from './common.js';

/** `dasvc login` (SPEC §3): resolve settings, run the flow, store the profile, report (never the tokens). */
export async function loginRun(ctx: CliContext): Promise<void> {
  const flags = ctx.flags;
  const view = loadProfile(ctx);
  const { profile } = view;
  const port = flags.port === undefined ? 0 : parsePort(String(flags.port));
  const timeoutSeconds =
    flags.timeout === undefined
      ? DEFAULT_LOGIN_TIMEOUT_MS / 1000
      : parseDuration(String(flags.timeout), '--timeout');
  const refreshMargin =
    flags.refreshMargin === undefined
      ? profile?.refreshMargin
      : parseDuration(String(flags.refreshMargin), '--refresh-margin');
  const explicitEndpoints =
    pickSetting(SETTINGS.authorizeUrl, flags, ctx.env, undefined) &&
    pickSetting(SETTINGS.tokenUrl, flags, ctx.env, undefined);
  const rawBase = explicitEndpoints
    ? pickSetting(SETTINGS.baseUrl, flags, ctx.env, profile)?.value
    : await requireSetting(SETTINGS.baseUrl, flags, ctx.env, profile, ctx.prompter);
  const baseUrl = rawBase === undefined ? undefined : normalizeBaseUrl(rawBase);
  const clientId = await requireSetting(SETTINGS.clientId, flags, ctx.env, profile, ctx.prompter);
  const clientSecret = await requireSetting(
    SETTINGS.clientSecret,
    flags,
    ctx.env,
    profile,
    ctx.prompter,
  );
  const scope = normalizeScope(
    await requireSetting(SETTINGS.scope, flags, ctx.env, profile, ctx.prompter),
  );
  const endpoints = resolveEndpoints(baseUrl, flags, ctx.env, profile);
  const placement = resolvePlacement(flags, ctx.env, profile);

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
        send: ctx.send,
        now: ctx.now,
        tell: (message) => ctx.out.info(message),
        openBrowser: flags.browser === false ? undefined : ctx.openBrowser,
        pasted: lines,
        signal: ctx.signal,
      },
    );
  } finally {
    lines?.close();
    if (lines) process.stdin.destroy();
  }
  const tokens = result.tokens;
  const saved = await ctx.store.update((data) => {
    const profiles = (data.profiles ??= {});
    profiles[view.name] = {
      ...profiles[view.name],
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
  const now = ctx.now();
  // The result on stdout, the narration on stderr (SPEC §3); never the tokens.
  if (ctx.out.json) ctx.out.result(tokenStateJson(view.name, stored, tokens, now));
  else ctx.out.line(sessionSummary(view.name, stored, tokens, now));
  ctx.out.success(
    `Logged in: profile ${view.name}, scope "${scope}", access token ${describeExpiry(tokens, now)}`,
  );
}
