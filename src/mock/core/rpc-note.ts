// What a journal entry says of the JSON-RPC calls of one request (SPEC §8): their methods, and the
// code of the first error with a reason that counts the others. The mock's own answers and the
// answers it proxies are told alike.
import type { RequestNote } from './types.js';

/** What one journal entry lists of a batch: its first methods or codes, then how many more. */
const SHOWN = 20;

/**
 * At most SHOWN items and a count of the rest: a journal of 1000 entries for batches of half a
 * million calls held gigabytes (SPEC §5: bad input never crashes the mock).
 */
function shown(items: string[]): string[] {
  return items.length <= SHOWN
    ? items
    : [...items.slice(0, SHOWN), `…${items.length - SHOWN} more`];
}

/** One JSON-RPC error answered, with a one-line reason. */
export interface RpcErrorNote {
  code: number;
  reason: string;
}

/** Sets `rpc` (the methods called) and, when any call failed, `code` and `reason` of `note`. */
export function noteRpcCalls(note: RequestNote, methods: string[], errors: RpcErrorNote[]): void {
  if (methods.length > 0) note.rpc = shown(methods);
  const first = errors[0];
  if (!first) return;
  note.code = first.code;
  const more = errors.length - 1;
  note.reason =
    more === 0
      ? first.reason
      : `${first.reason} (+${more} more: ${shown(errors.slice(1).map((e) => String(e.code))).join(', ')})`;
}
