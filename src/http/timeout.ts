import { timerMs } from '../util/duration.js';

/** Default time limit of one HTTP exchange; `DASVC_HTTP_TIMEOUT` overrides it. */
const DEFAULT_TIMEOUT_MS = 30_000;

/**
 * `DASVC_HTTP_TIMEOUT` in ms: seconds or a duration (`250ms`, `2m`), like every duration of SPEC
 * §3. A value that cannot be read, 0 or past what a timer holds is a usage error naming the
 * variable: falling back to the default would make `500ms` silently mean 30 s.
 */
export function httpTimeoutMs(env: NodeJS.ProcessEnv): number {
  const text = env.DASVC_HTTP_TIMEOUT;
  if (text === undefined || text === '') return DEFAULT_TIMEOUT_MS;
  return timerMs(text, 'DASVC_HTTP_TIMEOUT');
}
