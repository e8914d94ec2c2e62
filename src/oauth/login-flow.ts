import { InterruptedError, NetworkError } from '../errors.js';
import type { SendFn } from '../http/types.js';
import { buildAuthorizationUrl, loopbackRedirectUri } from './authorization-url.js';
import { parseCallback, parsePastedRedirect } from './callback.js';
import { callbackPage } from './callback-page.js';
import type { ParamsPlacement } from './endpoints.js';
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
}

/** The I/O of the flow, passed in. */
export interface LoginFlowDeps {
  send: SendFn;
  now: () => number;
  /** Shows the authorization URL and progress to the human (stderr). */
  tell: (message: string) => void;
  /** Opens the browser; absent with --no-browser. Failures are reported, not fatal. */
  openBrowser?: (url: string) => Promise<void>;
  /** Lines pasted by the user (--no-browser): a redirect URL completes the flow like the loopback. */
  pasted?: AsyncIterable<string>;
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
 * listen on 127.0.0.1, send the user to the authorization URL, take the first redirect whose state
 * matches (from the loopback or a pasted URL), exchange the code, and close the listener. A forged
 * state or an error redirect ends it with AuthError before any exchange.
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
  let finished = false;
  let exchanged!: { resolve: (tokens: TokenSet) => void; reject: (error: unknown) => void };
  const exchange = new Promise<TokenSet>((resolve, reject) => {
    exchanged = { resolve, reject };
  });
  exchange.catch(() => undefined);
  /** A redirect from the loopback or a paste; `href` is the address it came as (the witness's). */
  const accept = (query: URLSearchParams, href: string): 'code' | 'ignored' => {
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
    deps.tell(`Open this URL in a browser to authorize dasvc:\n\n  ${url}\n`);
    const timer = setTimeout(
      () =>
        settle.reject(
          new NetworkError(
            `login timed out: no authorization arrived within ${Math.round(options.timeoutMs / 1000)} s`,
            { code: 'login_timeout' },
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
    if (deps.openBrowser) {
      const open = deps.openBrowser;
      // Called as a promise whatever it returns (a plain-JS embedder's may return nothing, or
      // throw): its failure is reported, never the login's.
      Promise.resolve()
        .then(() => open(url))
        .then(
          () => deps.tell('Waiting for the browser…'),
          (error: unknown) =>
            deps.tell(
              `Could not open a browser (${(error as Error).message}); open the URL above yourself.`,
            ),
        );
    }
    if (deps.pasted) {
      deps.tell(
        'Waiting for the redirect; or paste the address your browser was sent to and press Enter:',
      );
      void readPasted(deps.pasted, accept, deps.tell, () => finished);
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
    for (const cleanup of cleanups) cleanup();
    // Let the loopback page (which awaits the exchange) go out before closing.
    await new Promise((resolve) => setImmediate(resolve));
    await loopback.close();
  }
}

async function readPasted(
  lines: AsyncIterable<string>,
  accept: (query: URLSearchParams, href: string) => 'code' | 'ignored',
  tell: (message: string) => void,
  finished: () => boolean,
): Promise<void> {
  try {
    for await (const line of lines) {
      if (finished()) return;
      if (line.trim() === '') continue;
      const query = parsePastedRedirect(line);
      if (query === undefined) {
        tell(
          'That is not a redirect URL; paste the whole address from the browser, starting with http.',
        );
        continue;
      }
      try {
        if (accept(query, line.trim()) === 'ignored')
          tell('That address carries neither a code nor an error; try again.');
        else return;
      } catch {
        return;
      }
    }
  } catch {
    // stdin closed or unreadable: the loopback may still complete the flow.
  }
}
