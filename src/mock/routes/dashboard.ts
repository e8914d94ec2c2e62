import { createHash } from 'node:crypto';
import type { MockResponse } from '../core/types.js';
import { DASHBOARD_STYLE, dashboardHtml } from './dashboard-page.js';
import { DASHBOARD_SCRIPT } from './dashboard-script.js';

const hash = (text: string) => `'sha256-${createHash('sha256').update(text).digest('base64')}'`;

let page: MockResponse | undefined;

/**
 * GET /_mock/ (SPEC §8): the dashboard, built once. Its CSP allows exactly its own inline style
 * and script (by hash) and requests to the mock itself: even if a value slipped into the markup,
 * no injected script could run or send anything elsewhere.
 */
export function dashboardResponse(): MockResponse {
  page ??= {
    status: 200,
    headers: {
      'content-type': 'text/html; charset=utf-8',
      'cache-control': 'no-store',
      'x-frame-options': 'DENY',
      'x-content-type-options': 'nosniff',
      'referrer-policy': 'no-referrer',
      'content-security-policy': [
        "default-src 'none'",
        `script-src ${hash(DASHBOARD_SCRIPT)}`,
        `style-src ${hash(DASHBOARD_STYLE)}`,
        "connect-src 'self'",
        "base-uri 'none'",
        "form-action 'none'",
        "frame-ancestors 'none'",
      ].join('; '),
    },
    body: dashboardHtml(DASHBOARD_STYLE, DASHBOARD_SCRIPT),
  };
  // A copy: adapters write into the headers object.
  return { ...page, headers: { ...page.headers } };
}
