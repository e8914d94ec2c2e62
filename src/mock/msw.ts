import { http, type HttpHandler } from 'msw';
import type { MockOptions } from './core/types.js';
import { createMockApp } from './index.js';

/** Options of createMockHandlers: where the fake service lives, plus the mock's options. */
export interface MockHandlersOptions extends Omit<MockOptions, 'port' | 'host' | 'basePath'> {
  /** e.g. `https://das.example.test` (a path prefix is allowed). */
  baseUrl: string;
}

/**
 * msw request handlers answering exactly like `dasvc mock` (SPEC §1 `dasvc/msw`), for
 * `setupServer(...createMockHandlers({ baseUrl }))` in an integrator's tests.
 */
export function createMockHandlers(options: MockHandlersOptions): HttpHandler[] {
  const { baseUrl, ...rest } = options;
  const base = new URL(baseUrl);
  const basePath = base.pathname.replace(/\/+$/, '');
  const app = createMockApp({ ...rest, basePath });
  const origin = `${base.origin}${basePath}`;
  return [http.all(`${origin}/*`, ({ request }) => app(request))];
}
