import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import { UsageError } from '../../errors.js';
import { parseDuration } from '../../util/duration.js';

/** How long a client may take to send a request (a stalled client never holds a socket for long). */
export interface ServerTimeouts {
  /** Until the request head is complete. */
  headersMs: number;
  /** Until the whole request, body included, is in. */
  requestMs: number;
}

/** 10 s for the head, 30 s for the whole request (`--headers-timeout`, `--request-timeout`). */
export const DEFAULT_TIMEOUTS: ServerTimeouts = { headersMs: 10_000, requestMs: 30_000 };

function timeoutMs(input: string | number | undefined, fallback: number, flag: string): number {
  if (input === undefined) return fallback;
  const ms = Math.round(parseDuration(input, flag) * 1000);
  // Longer than a day is no timeout at all; node:http takes 0 as "none", which is not offered.
  if (!(ms >= 1 && ms <= 86_400_000)) {
    throw new UsageError(`${flag} must be between 1ms and 1d, got ${String(input)}`, {
      code: 'bad_duration',
    });
  }
  return ms;
}

/** Reads the timeout options (durations like `10s`, `500ms`, or seconds); usage error when out of range. */
export function parseServerTimeouts(options: {
  headersTimeout?: string | number;
  requestTimeout?: string | number;
}): ServerTimeouts {
  const headersMs = timeoutMs(
    options.headersTimeout,
    DEFAULT_TIMEOUTS.headersMs,
    '--headers-timeout (option headersTimeout)',
  );
  const requestMs = timeoutMs(
    options.requestTimeout,
    Math.max(DEFAULT_TIMEOUTS.requestMs, headersMs),
    '--request-timeout (option requestTimeout)',
  );
  if (requestMs < headersMs) {
    throw new UsageError('--request-timeout must not be shorter than --headers-timeout', {
      code: 'bad_duration',
    });
  }
  return { headersMs, requestMs };
}

/**
 * node:http options that answer within the timeouts: node checks expired requests every
 * `connectionsCheckingInterval`, so each limit is handed over one interval early.
 */
export function nodeTimeouts(timeouts: ServerTimeouts) {
  const interval = Math.min(1000, Math.max(5, Math.floor(timeouts.headersMs / 10)));
  const headersTimeout = Math.max(1, timeouts.headersMs - interval);
  const requestTimeout = Math.max(headersTimeout, timeouts.requestMs - interval);
  return { headersTimeout, requestTimeout, connectionsCheckingInterval: interval };
}

/** Sockets whose request the server's timeout ended (their 408 sent), for the journal. */
export const timedOut = new WeakSet<Socket>();

/** Sockets whose request was answered before its body was in, until the body ends. */
export const answeredBeforeBody = new WeakSet<Socket>();

export function answeredEarly(req: IncomingMessage): void {
  const socket = req.socket;
  answeredBeforeBody.add(socket);
  req.once('end', () => answeredBeforeBody.delete(socket));
}
