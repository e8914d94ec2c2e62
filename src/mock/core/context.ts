import type { Fixtures } from '../fixtures/load-fixtures.js';
import type { MockState } from './mock-state.js';
import type { Quirks } from './quirks.js';

/** What every route reads: fixtures, state and the settled options. */
export interface MockContext {
  fixtures: Fixtures;
  state: MockState;
  autoApprove: string | undefined;
  /** Path prefix of the service ('' normally). */
  basePath: string;
  /** Deviations to reproduce (SPEC §7); replaced at run time by POST /_mock/quirks. */
  quirks: Quirks;
}
