// `--scrub a,b.c`: result members replaced by a placeholder of the same JSON type before anything
// is written. Pure.
import type { Example } from '../fixture-format/descriptors.js';

/** `"a, b.c"` or `["a", "b.c"]` → paths of member names. */
export function parseScrubList(input: string | string[] | undefined): string[][] {
  const list = typeof input === 'string' ? input.split(',') : (input ?? []);
  return list
    .map((item) => item.trim())
    .filter((item) => item !== '')
    .map((item) => item.split('.'));
}

/** A value of the same JSON type that tells nothing. */
export function placeholder(value: unknown): unknown {
  if (typeof value === 'string') return 'scrubbed';
  if (typeof value === 'number') return 0;
  if (typeof value === 'boolean') return false;
  if (Array.isArray(value)) return [];
  if (value !== null && typeof value === 'object') return {};
  return null;
}

function endsWith(path: string[], suffix: string[]): boolean {
  if (suffix.length > path.length) return false;
  const offset = path.length - suffix.length;
  return suffix.every((name, i) => path[offset + i] === name);
}

/**
 * A copy of `value` where every object member whose path of member names (array indices left
 * out) ends with one of `paths` is a placeholder: `email` at any depth, `contact.email` wherever
 * an `email` is a member of a `contact`.
 */
export function scrub(value: unknown, paths: string[][], at: string[] = []): unknown {
  if (paths.length === 0) return value;
  if (Array.isArray(value)) return value.map((item) => scrub(item, paths, at));
  if (value === null || typeof value !== 'object') return value;
  // fromEntries defines each member, so one named `__proto__` stays a member (an assignment would
  // set the copy's prototype and drop it).
  return Object.fromEntries(
    Object.entries(value as Record<string, unknown>).map(([key, member]) => {
      const path = [...at, key];
      return [
        key,
        paths.some((p) => endsWith(path, p)) ? placeholder(member) : scrub(member, paths, path),
      ];
    }),
  );
}

/** An answer as recorded: its result, or its error's `data`, scrubbed; the rest as it came. */
export function scrubOutcome(outcome: Example['outcome'], paths: string[][]): Example['outcome'] {
  if ('result' in outcome) return { result: scrub(outcome.result, paths) };
  const { error } = outcome;
  return {
    error: { ...error, ...(error.data === undefined ? {} : { data: scrub(error.data, paths) }) },
  };
}
