import { AuthError } from '../errors.js';
import { printable } from '../util/printable.js';
import { safeEqual } from '../util/secrets.js';

/** Outcome of reading a redirect: a code to exchange, or nothing usable yet. */
export type CallbackResult = { kind: 'code'; code: string } | { kind: 'ignored'; reason: string };

/**
 * Reads the query of the redirect to the client (SERVICE.md §4.1, RFC 6749 §4.1.2): checks `state`
 * in constant time first, then reports `error`, then returns `code`. A forged or missing state and
 * an error redirect throw AuthError (exit 3); a request with neither code nor error is ignored.
 */
export function parseCallback(query: URLSearchParams, expectedState: string): CallbackResult {
  const code = query.get('code');
  const error = query.get('error');
  if (code === null && error === null) {
    return { kind: 'ignored', reason: 'no code and no error in the redirect' };
  }
  // RFC 6749 §3.1: no parameter more than once. Which of two values counts is anyone's guess.
  const twice = ['state', 'code', 'error'].find((name) => query.getAll(name).length > 1);
  if (twice !== undefined) {
    throw new AuthError(
      `the redirect carried ${twice} more than once; refused (nothing was exchanged)`,
      { code: 'repeated_parameter', facts: { refusedBy: 'redirect', parameter: twice } },
    );
  }
  const state = query.get('state');
  if (state === null || !safeEqual(state, expectedState)) {
    throw new AuthError(
      'the redirect carried a state that does not match this login; refused (nothing was exchanged)',
      { code: 'state_mismatch', facts: { refusedBy: 'state' } },
    );
  }
  if (error !== null) {
    const description = query.get('error_description');
    // The service's words on the message's one line, as in token-response.ts.
    const said = `${printable(error) || 'an empty error'}${description ? ` (${printable(description)})` : ''}`;
    throw new AuthError(`authorization failed: ${said}`, {
      code: error || 'authorization_failed',
      detail: description ?? undefined,
      facts: { refusedBy: 'redirect' },
    });
  }
  return { kind: 'code', code: code! };
}

/** Reads a pasted redirect URL (SPEC §3 `--no-browser`); undefined when the text is not a URL. */
export function parsePastedRedirect(text: string): URLSearchParams | undefined {
  // As terminals and chat tools often wrap a URL: in quotes or angle brackets.
  const trimmed = text
    .trim()
    .replace(/^(?:"(.*)"|'(.*)'|<(.*)>)$/s, '$1$2$3')
    .trim();
  if (trimmed === '') return undefined;
  try {
    return new URL(trimmed).searchParams;
  } catch {
    // A bare query string pasted on its own is accepted too.
    if (/(^|[?&])(code|error)=/.test(trimmed))
      return new URLSearchParams(trimmed.replace(/^\?/, ''));
    return undefined;
  }
}
