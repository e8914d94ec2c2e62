/** The real browser of chromium-browser.mjs, run in the calling process; false when it failed. */
export function drive(url: string, env: Record<string, string | undefined>): Promise<boolean>;
