import type { HintRule } from './facts.js';

/**
 * `dasvc demo` (src/demo/): its login timed out (`during: 'demo'`). Login's own hint names
 * `dasvc login --timeout`, which is not the demo's to take; with `browser`, a person was to
 * approve, else the embedded mock was.
 */
export const demoHint: HintRule = (code, facts) => {
  if (facts.during !== 'demo' || code !== 'login_timeout') return undefined;
  return facts.browser === true
    ? 'approve on the consent page the browser opened, in time; dasvc demo without --browser approves by itself'
    : 'the embedded mock did not answer the login; run dasvc demo --verbose to see the exchange';
};
