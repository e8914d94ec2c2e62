import type { HttpHandler } from 'msw';
import type { Untyped } from '../client/typed-api.js';
import { mswExports, type MockHandlersOptions } from './msw-handlers.js';

export type { MockHandlersOptions } from './msw-handlers.js';

const msw = await mswExports();

/**
 * msw request handlers answering exactly like `dasvc mock` (SPEC §1 `dasvc/msw`), for
 * `setupServer(...createMockHandlers({ baseUrl }))` in an integrator's tests.
 */
export function createMockHandlers<A = Untyped>(options: MockHandlersOptions<A>): HttpHandler[] {
  return msw.createMockHandlers(options);
}
