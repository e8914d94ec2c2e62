import type { ServiceOptions } from '../../service-options.js';
import { UsageError } from '../../../errors.js';
import { DEFAULT_LOGIN_TIMEOUT_MS } from '../../../oauth/login-flow.js';
import { parseDuration } from '../../../util/duration.js';
import { parsePort } from '../../port.js';
import { openClient, type CliDeps } from '../../context.js';
import { pastedRedirects } from '../../input.js';
import { sayDone, sessionSummary, tokenStateJson } from '../../token-state.js';

/** Options of `dasvc login` (SPEC §3). */
export interface LoginOptions extends ServiceOptions {
  port?: string;
  /** false with --no-browser. */
  browser?: boolean;
  /** false with --no-pkce. */
  pkce?: boolean;
  timeout?: string;
  refreshMargin?: string;
  /** --insecure-storage: tokens and client secret in the config file, not the OS store (SPEC §9). */
  insecureStorage?: boolean;
}

/** `dasvc login` (SPEC §3): the client's login with the terminal's I/O; reports, never the tokens. */
export async function run(options: LoginOptions, deps: CliDeps): Promise<void> {
  const client = openClient(options, deps);
  const port = options.port === undefined ? 0 : parsePort(String(options.port));
  const timeoutSeconds =
    options.timeout === undefined
      ? DEFAULT_LOGIN_TIMEOUT_MS / 1000
      : parseDuration(String(options.timeout), '--timeout');
  if (!(timeoutSeconds > 0))
    throw new UsageError(
      `--timeout must be more than 0 seconds, got ${JSON.stringify(options.timeout)}`,
      {
        code: 'bad_duration',
      },
    );
  const refreshMargin =
    options.refreshMargin === undefined
      ? undefined
      : parseDuration(String(options.refreshMargin), '--refresh-margin');
  const noBrowser = options.browser === false;
  const stdin = pastedRedirects(deps.stdin);
  let outcome;
  try {
    outcome = await client.login({
      noBrowser,
      pasted: stdin.lines,
      // A terminal is read while the browser is waited for too; a pipe only without a browser.
      pastedBesideBrowser: deps.stdin.isTTY === true,
      port,
      pkce: options.pkce !== false,
      timeoutMs: timeoutSeconds * 1000,
      ...(refreshMargin === undefined ? {} : { refreshMargin }),
      insecureStorage: options.insecureStorage === true,
    });
  } finally {
    stdin.release();
  }
  const { profile: name, settings, tokens } = outcome;
  sayDone(deps, 'Logged in', tokenStateJson(name, settings, tokens, deps.now()), () =>
    sessionSummary(name, settings, tokens, deps.now()),
  );
}
