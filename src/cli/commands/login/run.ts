import type { ServiceOptions } from '../../service-options.js';
import { loginTimeoutMs } from '../../login-timeout.js';
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
  const timeoutMs = loginTimeoutMs(
    options.timeout === undefined ? undefined : String(options.timeout),
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
      timeoutMs,
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
