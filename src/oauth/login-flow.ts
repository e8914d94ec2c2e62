import { InterruptedError, NetworkError } from '../errors.js';
import type { SendFn } from '../http/types.js';
import {
  buildProbeRequest,
  emptyRedirectError,
  processProbeResponse,
} from './authorization-probe.js';
import { buildAuthorizationUrl, loopbackRedirectUri } from './authorization-url.js';
import { parseCallback } from './callback.js';
import { callbackPage } from './callback-page.js';
import type { ParamsPlacement } from './endpoints.js';
import { waitForPerson, type AcceptRedirect } from './login-wait.js';
import { startLoopback } from './loopback.js';
import { createPkce, randomState } from './pkce.js';
import type { ClientCredentials } from './token-request.js';
import { buildTokenRequest } from './token-request.js';
import { processTokenResponse, type TokenSet } from './token-response.js';

/** Default login timeout: long enough to log in, short enough not to hang a script forever. */
export const DEFAULT_LOGIN_TIMEOUT_MS = 300_000;

/** What the authorization-code flow needs to know (SERVICE.md §4.1–4.2). */
export interface LoginFlowOptions {
  authorizeUrl: string;
  tokenUrl: string;
  client: ClientCredentials;
  scope: string;
  placement: ParamsPlacement;
  /** Loopback port; 0 picks a free one. */
  port: number;
  /** Send PKCE S256 (RFC 7636); default true. */
  pkce?: boolean;
  /** Give up after this long (ms). */
  timeoutMs: number;
  /**
   * How long a browser or a paste is waited for when the service already approved the probe
   * (ms; default APPROVED_AT_ONCE_WAIT_MS) before its answer completes the login.
   */
  approvedAtOnceWaitMs?: number;
}

/**
 * A service that approved the probe at once gets the browser and the paste this long to bring
 * their own redirect (a script that runs the browser command, a forged paste to refuse), then its
 * own answer completes the login: a browser command that exits without visiting (`BROWSER=true`),
 * or a stdin nobody writes to, holds no script until the timeout.
 */
const APPROVED_AT_ONCE_WAIT_MS = 3000;

/** The I/O of the flow, passed in. */
export interface LoginFlowDeps {
  send: SendFn;
  /**
   * Sends the authorization request's probe; `send` when absent. `dasvc check` records what goes
   * through `send` as the code exchange it judges, which the probe is not.
   */
  probeSend?: SendFn;
  now: () => number;
  /** Shows the authorization URL and progress to the human (stderr). */
  tell: (message: string) => void;
  /**
   * Opens the browser; absent with --no-browser. A rejection means there is none (no display, a
   * failing command): it is reported, and the paste and the loopback remain.
   */
  openBrowser?: (url: string) => Promise<void>;
  /**
   * Lines pasted by the user: a redirect URL completes the flow like the loopback, while the
   * browser is waited for too.
   */
  pasted?: AsyncIterable<string>;
  /**
   * Whether `pasted` is also read while a browser that opened is waited for (default true): a
   * person at a terminal may paste either way; lines piped in by a script are read only when no
   * browser opened, so that a login leaves the script's other lines alone.
   */
  pastedBesideBrowser?: boolean;
  /** Aborts on Ctrl-C. */
  signal?: AbortSignal;
  /** The browser's half of the exchange (LoginWitness), which `dasvc check` shows as evidence. */
  witness?: LoginWitness;
}

/**
 * Told the authorization URL, then each redirect that carries a code or an error, as the address
 * it came to (a stray `/callback` visit is none).
 */
export type LoginWitness = (seen: { authorizationUrl: string } | { redirect: string }) => void;

/** Outcome of a finished login. */
export interface LoginResult {
  tokens: TokenSet;
  redirectUri: string;
}

/**
 * The authorization-code flow with a loopback redirect (RFC 6749 §4.1, RFC 8252 §7.3, RFC 7636):
 * listen on 127.0.0.1, send the authorization request once without following redirects (an error
 * answer ends the login at once), then print the authorization URL and send the user to it, take
 * the first redirect whose state matches (from the loopback or a pasted URL), exchange the code,
 * and close the listener. A forged state or an error redirect ends it with AuthError before any
 * exchange. A service that approved the probe at once completes the login from that answer when
 * nothing else can (no browser opened and no paste left to read), or after a short wait for them.
 */
export async function runLoginFlow(
  options: LoginFlowOptions,
  deps: LoginFlowDeps,
): Promise<LoginResult> {
  const state = randomState();
  const pkce = options.pkce === false ? undefined : createPkce();
  let settle!: { resolve: (code: string) => void; reject: (error: unknown) => void };
  const codePromise = new Promise<string>((resolve, reject) => {
    settle = { resolve, reject };
  });
  // A refusal may end the login before anything awaits the code.
  codePromise.catch(() => undefined);
  let finished = false;
  let exchanged!: { resolve: (tokens: TokenSet) => void; reject: (error: unknown) => void };
  const exchange = new Promise<TokenSet>((resolve, reject) => {
    exchanged = { resolve, reject };
  });
  exchange.catch(() => undefined);
  /** A redirect from the loopback or a paste; `href` is the address it came as (the witness's). */
  const accept: AcceptRedirect = (query, href) => {
    try {
      const result = parseCallback(query, state);
      if (result.kind === 'ignored') return 'ignored';
      deps.witness?.({ redirect: href });
      finished = true;
      settle.resolve(result.code);
      return 'code';
    } catch (error) {
      deps.witness?.({ redirect: href });
      finished = true;
      settle.reject(error);
      throw error;
    }
  };

  const loopback = await startLoopback(options.port, async (query, search) => {
    if (finished)
      return {
        status: 409,
        html: callbackPage(false, 'This login has already been completed or refused.'),
      };
    try {
      if (accept(query, `${redirectUri}${search}`) === 'ignored') {
        return {
          status: 400,
          html: callbackPage(false, 'The redirect carried neither a code nor an error.'),
        };
      }
    } catch (error) {
      return { status: 400, html: callbackPage(false, (error as Error).message) };
    }
    try {
      await exchange;
      return {
        status: 200,
        html: callbackPage(true, 'dasvc received the authorization and obtained its tokens.'),
      };
    } catch (error) {
      return { status: 502, html: callbackPage(false, (error as Error).message) };
    }
  });
  const redirectUri = loopbackRedirectUri(loopback.port);
  const cleanups: (() => void)[] = [];
  let over = false;
  try {
    const url = buildAuthorizationUrl({
      authorizeUrl: options.authorizeUrl,
      clientId: options.client.clientId,
      redirectUri,
      scope: options.scope,
      state,
      codeChallenge: pkce?.challenge,
    });
    deps.witness?.({ authorizationUrl: url });
    const timer = setTimeout(
      () =>
        settle.reject(
          new NetworkError(
            `login timed out: no authorization arrived within ${+(options.timeoutMs / 1000).toFixed(3)} s`,
            { code: 'login_timeout', facts: { timeoutSeconds: options.timeoutMs / 1000 } },
          ),
        ),
      options.timeoutMs,
    );
    cleanups.push(() => clearTimeout(timer));
    if (deps.signal) {
      const onAbort = () =>
        settle.reject(new InterruptedError('login interrupted; the listener is closed'));
      if (deps.signal.aborted) onAbort();
      deps.signal.addEventListener('abort', onAbort, { once: true });
      cleanups.push(() => deps.signal!.removeEventListener('abort', onAbort));
    }
    // The request once, as the browser would send it: an error answer ends the login now rather
    // than after the timeout.
    const probed = await Promise.race([
      (deps.probeSend ?? deps.send)(buildProbeRequest(url)).then((response) =>
        processProbeResponse(response, url, redirectUri),
      ),
      codePromise.then(() => undefined),
    ]);
    if (probed !== undefined) {
      let approvedAtOnce: (() => void) | undefined;
      if (probed.kind === 'redirect') {
        // Already the redirect: a forged state or an error ends the login now, as from the
        // loopback; a code is kept for when no browser opens and nothing is pasted.
        const query = new URL(probed.location).searchParams;
        let kind: 'code' | 'ignored' | undefined;
        try {
          kind = parseCallback(query, state).kind;
        } catch {
          accept(query, probed.location);
        }
        if (kind === 'ignored') throw emptyRedirectError();
        approvedAtOnce = () => {
          if (finished || over) return;
          deps.tell('The service approved at once, without a consent page.');
          accept(query, probed.location);
        };
      }
      deps.tell(`Open this URL in a browser to authorize dasvc:\n\n  ${url}\n`);
      waitForPerson(url, deps, accept, () => finished || over, approvedAtOnce);
      if (approvedAtOnce) {
        const wait = setTimeout(
          approvedAtOnce,
          options.approvedAtOnceWaitMs ?? APPROVED_AT_ONCE_WAIT_MS,
        );
        cleanups.push(() => clearTimeout(wait));
      }
    }
    const code = await codePromise;
    const tokens = await deps
      .send(
        buildTokenRequest({
          url: options.tokenUrl,
          client: options.client,
          code,
          redirectUri,
          codeVerifier: pkce?.verifier,
          placement: options.placement,
        }),
      )
      .then((response) =>
        processTokenResponse(response, deps.now(), 'token request', null, deps.tell),
      )
      .then(
        (result) => {
          exchanged.resolve(result);
          return result;
        },
        (error: unknown) => {
          exchanged.reject(error);
          throw error;
        },
      );
    return { tokens, redirectUri };
  } catch (error) {
    exchanged.reject(error);
    throw error;
  } finally {
    over = true;
    for (const cleanup of cleanups) cleanup();
    // Let the loopback page (which awaits the exchange) go out before closing.
    await new Promise((resolve) => setImmediate(resolve));
    await loopback.close();
  }
}
