import { UsageError } from '../errors.js';

/** `--port N` of `login` and `mock`: digits only, 0–65535 (0 picks a free port). */
export function parsePort(text: string): number {
  if (!/^\d{1,5}$/.test(text) || Number(text) > 65_535) {
    throw new UsageError(`--port must be 0–65535, got "${text}"`, { code: 'bad_port' });
  }
  return Number(text);
}
