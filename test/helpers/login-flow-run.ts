// A login flow run in-process against a transport (the real mock app, or answers a test gives),
// with what it tells and what its witness sees kept for the test.
import type { SendFn } from '../../src/http/types.js';
import {
  runLoginFlow,
  type LoginFlowDeps,
  type LoginFlowOptions,
} from '../../src/oauth/login-flow.js';

/** The authorization endpoint every flow here asks. */
export const AUTHORIZE = 'http://das.test/webservice/authorize/';

/** A login flow against `send`, with a browser that must not be opened unless given. */
export function flow(
  send: SendFn,
  deps: Partial<LoginFlowDeps> = {},
  options: Partial<LoginFlowOptions> = {},
) {
  const told: string[] = [];
  const seen: unknown[] = [];
  const result = runLoginFlow(
    {
      authorizeUrl: AUTHORIZE,
      tokenUrl: 'http://das.test/webservice/authorize',
      client: { clientId: 'demo-client', clientSecret: 'demo-secret' },
      scope: 'crm',
      placement: 'query',
      port: 0,
      timeoutMs: 20_000,
      // Longer than any test: a test of the wait for a browser sets its own.
      approvedAtOnceWaitMs: 60_000,
      ...options,
    },
    {
      send,
      now: Date.now,
      tell: (message) => told.push(message),
      witness: (step) => seen.push(step),
      openBrowser: () => Promise.reject(new Error('the browser must not be opened')),
      ...deps,
    },
  );
  return { result, told, seen };
}
