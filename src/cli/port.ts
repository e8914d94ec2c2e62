import { checkPort } from '../util/port.js';

/** `--port N` of `login`, `check` and `mock`: digits only (not " 80", "1e3" or "8080.0"). */
export function parsePort(text: string): number {
  return checkPort(/^\d{1,5}$/.test(text) ? Number(text) : text, '--port');
}
