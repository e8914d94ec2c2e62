import { escapeHtml } from '../util/html.js';

/** The page the browser shows after the redirect: self-contained (no external resources), success or error. */
export function callbackPage(ok: boolean, message: string): string {
  const title = ok ? 'dasvc: logged in' : 'dasvc: login failed';
  const colour = ok ? '#1a7f37' : '#cf222e';
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<title>${title}</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:36rem;margin:4rem auto;padding:0 1rem;color:#1f2328}h1{color:${colour};font-size:1.4rem}</style>
</head><body><h1>${ok ? 'Logged in' : 'Login failed'}</h1><p>${escapeHtml(message)}</p>
<p>You can close this tab and return to the terminal.</p></body></html>
`;
}
