// The person's part of a login: the browser opened on the authorization URL and pasted redirects
// read, side by side, until one of them (or the loopback) brings the redirect; and the service's
// own approval, when it gave one at once, when nothing else can.
import type { LoginFlowDeps } from './login-flow.js';
import { parsePastedRedirect } from './callback.js';

/** Takes a redirect (loopback or paste): 'ignored' when it carries neither code nor error. */
export type AcceptRedirect = (query: URLSearchParams, href: string) => 'code' | 'ignored';

/** What the person is asked to do once the URL is printed. */
const PASTE = 'paste the address your browser was sent to and press Enter:';

/**
 * The browser opened on the URL, and pasted redirects read, at the same time (unless
 * `pastedBesideBrowser` is false: then only once no browser opened): either completes the login.
 * No browser (--no-browser, none configured, none that works) leaves the paste and the loopback; `approvedAtOnce` (the probe's own redirect) completes it once no browser opened and
 * the paste has ended (at once without one).
 */
export function waitForPerson(
  url: string,
  deps: LoginFlowDeps,
  accept: AcceptRedirect,
  over: () => boolean,
  approvedAtOnce: (() => void) | undefined,
): void {
  const { openBrowser, pasted, tell } = deps;
  const say = (message: string) => {
    if (!over()) tell(message);
  };
  let pasteEnded: Promise<boolean> | undefined;
  const readPaste = () =>
    (pasteEnded ??= pasted ? readPasted(pasted, accept, tell, over) : Promise.resolve(true));
  const withoutBrowser = () =>
    void readPaste().then((ended) => {
      if (ended) approvedAtOnce?.();
    });
  if (!openBrowser) {
    if (pasted) say(`Waiting for the redirect; or ${PASTE}`);
    withoutBrowser();
    return;
  }
  const besideBrowser = pasted !== undefined && deps.pastedBesideBrowser !== false;
  if (besideBrowser) void readPaste();
  // Called as a promise whatever it returns (a plain-JS embedder's may return nothing, or
  // throw): its failure is reported, never the login's.
  Promise.resolve()
    .then(() => openBrowser(url))
    .then(
      () =>
        say(besideBrowser ? `Waiting for the browser; or ${PASTE}` : 'Waiting for the browser…'),
      (error: unknown) => {
        const why = error instanceof Error ? error.message : String(error);
        say(
          `Could not open a browser (${why}); open the URL above yourself${pasted ? `, then ${PASTE}` : '.'}`,
        );
        withoutBrowser();
      },
    );
}

/** How many pasted lines that are no redirect are answered, each with why. */
const ANSWERED_LINES = 10;

/** Reads pasted redirects until one is taken (false) or the lines end (true). */
async function readPasted(
  lines: AsyncIterable<string>,
  accept: AcceptRedirect,
  tell: (message: string) => void,
  finished: () => boolean,
): Promise<boolean> {
  // A person pastes a few wrong lines; a stream of them (`yes | dasvc login`) gets a few answers.
  let answered = 0;
  const refuse = (message: string) => {
    answered += 1;
    if (answered <= ANSWERED_LINES) tell(message);
    if (answered === ANSWERED_LINES) tell('Further lines that are no redirect get no answer.');
  };
  try {
    for await (const line of lines) {
      if (finished()) return false;
      if (line.trim() === '') continue;
      const query = parsePastedRedirect(line);
      if (query === undefined) {
        refuse(
          'That is not a redirect URL; paste the whole address from the browser, starting with http.',
        );
        continue;
      }
      try {
        if (accept(query, line.trim()) === 'ignored')
          refuse('That address carries neither a code nor an error; try again.');
        else return false;
      } catch {
        return false;
      }
    }
  } catch {
    // stdin closed or unreadable: the loopback may still complete the flow.
  }
  return !finished();
}
