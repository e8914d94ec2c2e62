/** Exit codes of SPEC §4; the only place they are numbered. */
export const ExitCode = {
  ok: 0,
  service: 1,
  usage: 2,
  auth: 3,
  network: 4,
  interrupted: 130,
} as const;
export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];

/** A JSON-RPC 2.0 error object (JSON-RPC 2.0 §5.1), as the service answered it. */
export interface JsonRpcErrorObject {
  code: number;
  message: string;
  data?: unknown;
}

export interface DasvcErrorOptions {
  /**
   * Stable machine-readable code, e.g. `invalid_grant`, `connection_refused`, `missing_setting`;
   * kept in snake_case (SPEC §4: one naming style), also when it is a service's own `error`.
   */
  code?: string;
  /**
   * A next step for a person, printed under the message: set by the CLI's own commands only.
   * Below the CLI an error carries its facts (`code`, `facts`) and src/cli/hints/ makes the hint.
   */
  hint?: string;
  /** HTTP status of the answer that caused it, when there was one. */
  status?: number;
  /**
   * The service's own words about the failure, as received: the OAuth `error_description`, the
   * JSON-RPC `error.data`, the body of an API error that is no JSON-RPC answer.
   */
  detail?: unknown;
  /** The JSON-RPC error object a call answered with: the same member as `--json` errors' `rpc`. */
  rpc?: JsonRpcErrorObject;
  /**
   * dasvc's facts of the failure (the profile, the proxy, the names that would have done, the
   * command whose flow failed): what a hint is made from. Never the service's words.
   */
  facts?: Readonly<Record<string, unknown>>;
  cause?: unknown;
}

/**
 * A code in the one naming style of errors (SPEC §4): a service's `Bad-Gateway`, commander's
 * `unknownCommand`, a class name such as `UsageError` and a kebab-case code all become snake_case.
 */
export function snakeCode(code: string): string {
  return code
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/[^A-Za-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .toLowerCase();
}

/** What kind of failure an error is (SPEC §1 programmatic client), one per exit code of §4. */
export type ErrorKind = 'usage' | 'service' | 'auth' | 'network' | 'interrupted';

/**
 * Base of every error dasvc means to report; anything else is a bug and exits 1 with its stack.
 * Each class writes out its `name` (the `--json` error's code when it has none): the bundle
 * shortens class identifiers.
 */
export abstract class DasvcError extends Error {
  abstract readonly kind: ErrorKind;
  abstract readonly exitCode: ExitCode;
  readonly code: string | undefined;
  readonly hint: string | undefined;
  readonly status: number | undefined;
  readonly detail: unknown;
  readonly rpc: JsonRpcErrorObject | undefined;
  readonly facts: Readonly<Record<string, unknown>>;

  constructor(message: string, options: DasvcErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = options.code === undefined ? undefined : snakeCode(options.code) || 'error';
    this.hint = options.hint;
    this.status = options.status;
    this.detail = options.detail;
    this.rpc = options.rpc;
    this.facts = options.facts ?? {};
  }
}

/**
 * A new error of the same class as `error` (so the same kind and exit code), with its code,
 * status, the service's words (`detail`) and JSON-RPC error object (`rpc`) unless `options` says
 * otherwise: for a failure
 * retold with more context. Its facts are kept, the caller's added over them: a hint may need
 * both what failed and what the caller was doing.
 */
export function sameKind(
  error: DasvcError,
  message: string,
  options: DasvcErrorOptions = {},
): DasvcError {
  const Kind = error.constructor as new (message: string, o: DasvcErrorOptions) => DasvcError;
  return new Kind(message, {
    ...(error.code === undefined ? {} : { code: error.code }),
    ...(error.status === undefined ? {} : { status: error.status }),
    ...(error.detail === undefined ? {} : { detail: error.detail }),
    ...(error.rpc === undefined ? {} : { rpc: error.rpc }),
    ...options,
    facts: { ...error.facts, ...options.facts },
  });
}

/** The service answered with an error: JSON-RPC error, non-auth OAuth error, HTTP 5xx (exit 1). */
export class ServiceError extends DasvcError {
  override readonly name: string = 'ServiceError';
  readonly kind = 'service';
  readonly exitCode = ExitCode.service;
}

/** Bad flag, missing setting, unreadable params or config file (exit 2). */
export class UsageError extends DasvcError {
  override readonly name: string = 'UsageError';
  readonly kind = 'usage';
  readonly exitCode = ExitCode.usage;
}

/** Not logged in, expired, revoked, invalid_grant/invalid_client, HTTP 401/403, forged state (exit 3). */
export class AuthError extends DasvcError {
  override readonly name: string = 'AuthError';
  readonly kind = 'auth';
  readonly exitCode = ExitCode.auth;
}

/** Connection refused, DNS, TLS, timeout, or an answer that is not the JSON expected (exit 4). */
export class NetworkError extends DasvcError {
  override readonly name: string = 'NetworkError';
  readonly kind = 'network';
  readonly exitCode = ExitCode.network;
}

/** Ctrl-C: listeners are closed before this reaches main (exit 130). */
export class InterruptedError extends DasvcError {
  override readonly name: string = 'InterruptedError';
  readonly kind = 'interrupted';
  readonly exitCode = ExitCode.interrupted;

  /** Its code is `interrupted` unless a more precise one is given (`prompt_closed`). */
  constructor(message: string, options: DasvcErrorOptions = {}) {
    super(message, { code: 'interrupted', ...options });
  }
}

// The bundle shortens class names: each error class keeps its own, which Node prints with an
// uncaught error (`UsageError [UsageError]: …` rather than a letter) and a caller may read.
for (const [Kind, name] of [
  [DasvcError, 'DasvcError'],
  [ServiceError, 'ServiceError'],
  [UsageError, 'UsageError'],
  [AuthError, 'AuthError'],
  [NetworkError, 'NetworkError'],
  [InterruptedError, 'InterruptedError'],
] as const)
  Object.defineProperty(Kind, 'name', { value: name });

/**
 * Whether a request failed on the way rather than being refused: no answer at all (the network,
 * a timeout), or a 5xx. A refusal (an OAuth or HTTP 4xx error) or an answer that came but was not
 * the one expected is the service's word, and is not retried around.
 */
export function failedOnTheWay(error: unknown): boolean {
  return (
    (error instanceof NetworkError && error.status === undefined) ||
    (error instanceof ServiceError && (error.status ?? 0) >= 500)
  );
}
