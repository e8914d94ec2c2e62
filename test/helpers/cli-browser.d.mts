/** The stand-in browser of cli-browser.mjs, run in the calling process. */
export function standIn(url: string, env: Record<string, string | undefined>): Promise<void>;
