import { printable, safeJson } from '../../util/printable.js';
import type { JournalEntry } from './journal.js';

/** Paints text for a status (by class); the plain log uses none. */
export type Painter = (status: number, text: string) => string;

/** A field value; quoted when it has spaces or quotes, so the line still splits on spaces. */
function value(text: string): string {
  return /[\s"]/.test(text) ? safeJson(JSON.stringify(text)) : printable(text);
}

/**
 * One log line of `dasvc mock` (SPEC §8): time, method, path with the query (secrets masked),
 * status, duration; then rpc=, user=, client= where they apply; then `code: reason`.
 */
export function formatLogLine(entry: JournalEntry, paint?: Painter): string {
  const query = entry.query === '' ? '' : `?${entry.query}`;
  const status = entry.status === 0 ? 'dropped' : String(entry.status);
  let line = `${entry.time} ${printable(entry.method)} ${printable(entry.path + query)} ${
    paint ? paint(entry.status, status) : status
  } ${entry.durationMs.toFixed(1)}ms`;
  if (entry.rpc !== undefined) line += ` rpc=${entry.rpc.map(value).join(',')}`;
  if (entry.user !== undefined) line += ` user=${value(entry.user)}`;
  if (entry.client !== undefined) line += ` client=${value(entry.client)}`;
  if (entry.reason !== undefined || entry.code !== undefined) {
    const why = printable(
      entry.code === undefined ? (entry.reason ?? '') : `${entry.code}: ${entry.reason ?? ''}`,
    );
    // A JSON-RPC error travels in a 200; its reason is painted as the refusal it is.
    const as = entry.status >= 400 || entry.status === 0 ? entry.status : 400;
    line += ` ${paint && entry.code !== undefined ? paint(as, why) : why}`;
  }
  return line;
}
