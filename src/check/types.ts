import type { HttpRequest, HttpResponse } from '../http/types.js';
import type { Quirks } from '../schemas/quirks.js';

/** One request the check sent and what came back: an answer, or why none came. */
export interface Exchange {
  request: HttpRequest;
  response?: HttpResponse;
  /** Set when no HTTP answer arrived (connection refused or reset, timeout). */
  error?: string;
  /**
   * For the authorization request, which the browser makes: where the browser was sent in the
   * end (the redirect as it reached the loopback or the paste), in place of an HTTP answer.
   */
  redirect?: string;
}

/** The three outcomes of a rule (SPEC §7). */
export type RuleStatus = 'ok' | 'deviates' | 'skipped';

/** A rule's result: what SERVICE.md (or SPEC §5) expects, what was seen, and the evidence. */
export interface Verdict {
  id: string;
  status: RuleStatus;
  expected: string;
  observed: string;
  /** The exchanges behind a deviation (redacted when shown). */
  evidence?: Exchange[];
  /** What a deviation means for the mock (`--save-quirks`); absent when no quirk expresses it. */
  quirk?: Quirks;
}

/** A verdict without its id, as the pure rules return it (the caller knows which rule it ran). */
export type Finding = Omit<Verdict, 'id' | 'expected'>;
