import type { MockRequest } from './types.js';

/**
 * The Origin a browser named, when it is not the mock's own host: a page of another site may post
 * a form to the mock (a simple POST needs no preflight), so what changes state refuses it (CSRF).
 * Undefined when it is the mock's, or when none was sent (scripts, test harnesses). Compared by
 * host: a proxy that ends TLS shows the page as https while the mock sees http. `null` (a
 * sandboxed frame, a file) names no host, and is foreign.
 */
export function foreignOrigin(request: MockRequest): string | undefined {
  const from = request.header('origin');
  if (from === undefined) return undefined;
  try {
    return new URL(from).host === new URL(request.origin).host ? undefined : from;
  } catch {
    return from;
  }
}
