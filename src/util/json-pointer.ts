// JSON Pointer (RFC 6901): the one place its segments are escaped, unescaped and followed.
import { isObject } from './guards.js';

/** One key as a pointer segment: `~` as `~0`, then `/` as `~1` (RFC 6901 §3). */
export function escapeSegment(key: string | number): string {
  return String(key).replace(/~/g, '~0').replace(/\//g, '~1');
}

/** The key a pointer segment names: `~1` back to `/` first, then `~0` to `~` (RFC 6901 §4). */
export function unescapeSegment(segment: string): string {
  return segment.replace(/~1/g, '/').replace(/~0/g, '~');
}

/**
 * The keys `pointer` names, in order: none for '' (the whole value). Each segment goes through
 * `decode` before it is unescaped: `decodeURIComponent` for a pointer in a URI fragment (§6).
 */
export function pointerKeys(pointer: string, decode = (raw: string) => raw): string[] {
  if (pointer === '') return [];
  return pointer
    .slice(1)
    .split('/')
    .map((raw) => unescapeSegment(decode(raw)));
}

/** The value `keys` lead to in `root` through its own members; undefined where one is missing. */
export function valueAt(root: unknown, keys: readonly string[]): unknown {
  let value = root;
  for (const key of keys) {
    if (!(isObject(value) || Array.isArray(value)) || !Object.hasOwn(value, key)) return undefined;
    value = (value as Record<string, unknown>)[key];
  }
  return value;
}
