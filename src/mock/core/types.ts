import type { JournalEntry } from './journal.js';
import { MAX_DURATION_SECONDS } from '../../util/duration.js';
import type { Quirks } from '../../schemas/quirks.js';
import type { Untyped } from '../../client/typed-api.js';
import type { MethodOverrides } from './method-overrides.js';

/**
 * Options of the mock, the camelCase of the `dasvc mock` flags (SPEC §1, §3). `A`: the `Api`
 * that `dasvc types` declares, which types `methods` (SPEC §10).
 */
export interface MockOptions<A = Untyped> {
  /** Port to listen on; 0 picks a free one. Server only. */
  port?: number;
  /** Interface to listen on; default 127.0.0.1. Server only. */
  host?: string;
  /** Fixtures directory; default the package's `fixtures/`. */
  fixtures?: string;
  /** Approve every authorization request at once as this user (no consent page). */
  autoApprove?: string;
  /** Lifetime of authorization codes: "90s", "1h", or seconds. Default 1h (SERVICE.md 2.2). */
  codeTtl?: string | number;
  /** Lifetime of access tokens. Default 1h. */
  accessTtl?: string | number;
  /** Lifetime of refresh tokens. Default 30d. */
  refreshTtl?: string | number;
  /** Persist codes, tokens, grants and the clock offset in this JSON file. */
  stateFile?: string;
  /**
   * Receives one line per request (secrets redacted, reasons for refusals: SPEC §8) and the mock's
   * own messages (a failed state-file write, an internal error). With `onRequest`, request lines
   * go there instead.
   */
  log?: (line: string) => void;
  /** Receives each handled request as a journal entry (SPEC §8), control reads excepted. */
  onRequest?: (entry: JournalEntry) => void;
  /** No request lines at all (`dasvc mock --quiet`, SPEC §3); `log` still gets the mock's own. */
  quiet?: boolean;
  /** How many requests the journal keeps (GET /_mock/journal); default 1000, 1 to 1 000 000. */
  journalSize?: number;
  /** Wall clock in milliseconds; tests inject their own. The virtual offset is added to it. */
  now?: () => number;
  /**
   * Time allowed for a request head (line and headers) to arrive: "10s", "500ms", or seconds.
   * Past it the connection gets 408 and is closed. Default 10s. Server only.
   */
  headersTimeout?: string | number;
  /** Time allowed for a whole request, body included; at least headersTimeout. Default 30s. Server only. */
  requestTimeout?: string | number;
  /** Path prefix the service lives under (msw handlers on a base URL with a path). */
  basePath?: string;
  /** Upstream base URL: forward everything but `/_mock/` there (SPEC §6 `--proxy`). */
  proxy?: string;
  /** With `proxy`: write what passes into this fixtures folder (SPEC §6 `--record`). */
  record?: string;
  /** The one user of the recorded folder; default `recorded` (`--record-user`). */
  recordUser?: string;
  /** With `proxy` and `fixtures`: check every call against the fixtures' contract (`--validate`). */
  validate?: boolean;
  /** Result members replaced by a placeholder in the recording: `"a,b.c"` or a list (`--scrub`). */
  scrub?: string | string[];
  /**
   * Receives problem lines: `contract: …` violations, recording failures, and per fixture file
   * the count of example pairings that contradict their schemas (the CLI: stderr).
   */
  warn?: (line: string) => void;
  /** `warn` also gets one line per example pairing that contradicts its schemas (`--verbose`). */
  verbose?: boolean;
  /**
   * An installation's deviations to reproduce (SPEC §7): a quirks object, or the path of a quirks
   * JSON file. Unknown members or values fail with a usage error naming them.
   */
  quirks?: Quirks | string;
  /**
   * Methods answered by these functions before the fixtures, per instance and method:
   * `{ crm: { 'contacts.get': ({ params, user }) => result } }`. Each gets what a computed method
   * gets (the params checked against the method's declared ones, when the fixtures declare it)
   * and answers likewise: its result (checked against the declared result schema), or the
   * JSON-RPC error `{ code, message, data? }` it throws. The instance must be one of the fixtures.
   */
  methods?: MethodOverrides<A>;
}

/** The request as the core handler sees it: the same shape from undici, node:http and msw. */
export interface MockRequest {
  method: string;
  /** Path without the query, percent-encoding untouched. */
  path: string;
  /** The raw query without `?`, or ''. */
  query: string;
  /** `http://host:port` of the request, used for every absolute URL the mock emits. */
  origin: string;
  /** Header value by lower-case name; repeated headers joined with ", ". */
  header(name: string): string | undefined;
  /** Body as text (UTF-8); rejects with BodyTooLargeError past `limit` bytes. */
  text(limit: number): Promise<string>;
  /** Body as received, byte for byte (the proxy forwards it); the same limit and error as text. */
  bytes(limit: number): Promise<Uint8Array>;
  /**
   * The body once text() or bytes() has read it whole, for the journal; undefined before (a
   * route that answered without reading it never waits for it).
   */
  readonly receivedBody?: Uint8Array | undefined;
  /**
   * False when a server listening on a loopback address got a request whose Host names another
   * host: a page that rebound its own name to 127.0.0.1 (DNS rebinding) passes every same-origin
   * check, so the control API refuses it. Absent (in-process apps, msw) or true: nothing to refuse.
   */
  readonly loopbackHost?: boolean;
  /** The host the request names (an absolute-form target's authority, else Host), for messages. */
  readonly authority?: string;
  /**
   * Every header as received, flat (`name, value, name, value`, node's `rawHeaders`), repeated
   * ones repeated (the proxy forwards them).
   */
  rawHeaders?(): string[];
}

/** The answer as the core handler produces it; adapters write it out. */
export interface MockResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
  /** Fault injection: drop the connection without an answer. */
  drop?: boolean;
  /** A proxied answer: the body as bytes, streamed as they come (`body` is then unused). */
  stream?: AsyncIterable<Uint8Array> | Iterable<Uint8Array>;
  /**
   * A proxied answer's headers as received, flat (`name, value, …`), repeated ones repeated
   * (`headers` is then unused).
   */
  rawHeaders?: string[];
  /** A proxied answer's reason phrase as the upstream sent it (SPEC §6: the answer unchanged). */
  statusMessage?: string;
  /** Why the mock answered so (SPEC §8): set where the answer is decided, read by log and journal. */
  note?: RequestNote;
}

/**
 * The explanation of one answer (SPEC §8). Routes fill in what they know; a refusal always has
 * `code` (OAuth `error` or JSON-RPC error code) and a one-line `reason`.
 */
export interface RequestNote {
  /** JSON-RPC method(s) called, in request order (a batch lists each). */
  rpc?: string[];
  /** The user the request acts for (authorizing user of the token or code). */
  user?: string;
  /** The client the request names (authenticated or merely claimed, as on a refusal). */
  client?: string;
  /** OAuth error code or JSON-RPC error code of the (first) refusal. */
  code?: string | number;
  /** One line saying why. */
  reason?: string;
}

/** Raised by MockRequest.text() past the body limit (answered 413). */
export class BodyTooLargeError extends Error {
  constructor(readonly limit: number) {
    super(`request body exceeds ${limit} bytes`);
  }
}

/**
 * The request body never came in whole: the client closed its connection, or the server's
 * request timeout ended it (answered 408 by the adapter). Nobody is left to answer; the journal
 * records `status` (0: unanswered) with `code`.
 */
export class ClientGoneError extends Error {
  constructor(
    readonly status: 0 | 408 = 0,
    readonly code = 'client_closed',
    reason = 'the client closed the connection before its request body was in',
  ) {
    super(reason);
  }
}

/** 1 MiB: larger bodies are refused with 413. */
export const BODY_LIMIT = 1024 * 1024;

/** 100 years: the longest lifetime and the largest clock offset; every date stays representable. */
export const MAX_SECONDS = MAX_DURATION_SECONDS;
