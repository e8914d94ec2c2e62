import { UsageError } from '../errors.js';
import { DEFAULT_LOGIN_TIMEOUT_MS } from '../oauth/login-flow.js';
import { MAX_TIMER_MS, parseDuration } from '../util/duration.js';

/** `--timeout` of `login` and `check` in milliseconds: more than 0, and at most MAX_TIMER_MS. */
export function loginTimeoutMs(value: string | undefined): number {
  if (value === undefined) return DEFAULT_LOGIN_TIMEOUT_MS;
  const seconds = parseDuration(value, '--timeout');
  if (!(seconds > 0 && seconds * 1000 <= MAX_TIMER_MS)) {
    throw new UsageError(
      `--timeout must be more than 0 seconds and at most 24 days, got ${JSON.stringify(value)}`,
      { code: 'bad_duration' },
    );
  }
  return seconds * 1000;
}
