import type { Fixtures } from '../fixture-format/fixture-format.js';
import type { MockState } from './mock-state.js';
import type { MockRequest, MockResponse } from './types.js';

/** The proxy side (SPEC §6), once started: forwarding, the contract violations, closing. */
export interface ProxyHost {
  forward(request: MockRequest, path: string): Promise<MockResponse>;
  /** `--validate`: what `GET /_mock/violations` lists. */
  violations?: { list(): unknown[]; clear(): void };
  /**
   * Masks every secret seen pass (with --record or --validate): the request log and journal
   * show a proxied request's path and query through it.
   */
  maskText?: (text: string) => string;
  close(): Promise<void>;
}
import type { Quirks } from '../../schemas/quirks.js';
import type { OverrideTable } from './method-overrides.js';

/** What every route reads: fixtures, state and the settled options. */
export interface MockContext {
  fixtures: Fixtures;
  state: MockState;
  autoApprove: string | undefined;
  /** Path prefix of the service ('' normally). */
  basePath: string;
  /** Set when the mock forwards to an upstream (`proxy` option), before the first request. */
  proxy?: ProxyHost;
  /** Deviations to reproduce (SPEC §7); replaced at run time by POST /_mock/quirks. */
  quirks: Quirks;
  /** Methods answered by the functions of the `methods` option, before the fixtures. */
  methods?: OverrideTable;
}
