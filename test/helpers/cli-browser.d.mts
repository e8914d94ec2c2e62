/** The stand-in browser of cli-browser.mjs, run in the calling process. */
export function standIn(url: string, env: Record<string, string | undefined>): Promise<void>;
/** The redirect URL the service sends the browser to once alice approved (or denied: `'deny'`). */
export function redirectAfterConsent(url: string, mode?: string): Promise<string | null>;
/** The consent page's form answered as alice (Deny in `'deny'` mode): where to post it, and its body. */
export function consentForm(
  url: string,
  html: string,
  mode?: string,
): { action: string; body: string } | null;
