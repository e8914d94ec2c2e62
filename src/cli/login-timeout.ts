import { DEFAULT_LOGIN_TIMEOUT_MS } from '../oauth/login-flow.js';
import { timerMs } from '../util/duration.js';

/** `--timeout` of `login` and `check` in milliseconds. */
export function loginTimeoutMs(value: string | undefined): number {
  return value === undefined ? DEFAULT_LOGIN_TIMEOUT_MS : timerMs(value, '--timeout');
}
