// `--record` bounds: what one example may hold. An answer or params past EXAMPLE_LIMIT
// bytes of JSON are kept cut down to about that size, and nothing nested deeper than RECORD_DEPTH
// levels is kept, so that the recording's memory and every later write stay small whatever the
// installation answers. Pure. docs/design/record-bounds.md says why these shapes and sizes.

import { RESPONSE_LIMIT } from '../../http/response-limit.js';

/** Bytes of JSON one example's params, and its answer, may each take in the folder. */
export const EXAMPLE_LIMIT = 1024 * 1024;

/**
 * The most of an answer the taps (--record, --validate) read, decoded too: as much as dasvc's
 * client reads of one answer. A longer one streams on, unseen by them (nothing to record), and an
 * endless one or a decompression bomb holds neither memory nor the event loop.
 */
export const TAPPED_LIMIT = RESPONSE_LIMIT;

/** Levels of nesting kept: an array or object inside that many others is kept empty. */
export const RECORD_DEPTH = 100;

/** What a cut string ends with. */
const CUT_MARK = '…';

/** A value within bounds: the value itself when it was within them already. */
export interface Bounded {
  value: unknown;
  /** Bytes of its JSON (as `JSON.stringify` writes it, UTF-8). */
  bytes: number;
  truncated: boolean;
}

/** Why a value was cut: past its size, or past the depth bound (or both). */
export type Cut = 'size' | 'depth';

/** Bytes of a string's JSON: its UTF-8 bytes, the quotes and the escapes. */
function stringBytes(text: string): number {
  // Most strings need no escape: counting them is cheaper than serializing.
  return /["\\\u0000-\u001f]/.test(text) // eslint-disable-line no-control-regex
    ? Buffer.byteLength(JSON.stringify(text))
    : Buffer.byteLength(text) + 2;
}

/** The longest start of `text`, whole characters, that fits `budget` bytes of JSON with the mark. */
function cutString(text: string, budget: number): string {
  let low = 0;
  let high = Math.min(text.length, budget);
  while (low < high) {
    const mid = Math.ceil((low + high) / 2);
    if (stringBytes(`${text.slice(0, mid)}${CUT_MARK}`) <= budget) low = mid;
    else high = mid - 1;
  }
  // A surrogate pair is not split: half of one is no character.
  const code = text.charCodeAt(low - 1);
  const end = code >= 0xd800 && code <= 0xdbff ? low - 1 : low;
  return `${text.slice(0, end)}${CUT_MARK}`;
}

/** An empty value of the same JSON type. */
function empty(value: unknown): unknown {
  return typeof value === 'string' ? '' : Array.isArray(value) ? [] : {};
}

/**
 * Where a value is written: its depth in the value bounded, and its indentation level in the
 * file (`JSON.stringify(…, null, 2)`), or none for compact JSON.
 */
interface Place {
  depth: number;
  level: number | undefined;
  /** Why anything was cut, for all the places of one value. */
  cuts: Set<Cut>;
}

/** Bytes of JSON punctuation around `count` members of a container at `place` (not its own). */
function layout(place: Place, count: number, object: boolean): number {
  if (count === 0) return 2;
  const colons = object ? count * (place.level === undefined ? 1 : 2) : 0;
  const commas = count - 1;
  const lines =
    place.level === undefined ? 0 : count * (1 + 2 * (place.level + 1)) + 1 + 2 * place.level;
  return 2 + colons + commas + lines;
}

/** The place of a member of a container at `place`. */
function inside(place: Place): Place {
  const level = place.level === undefined ? undefined : place.level + 1;
  return { depth: place.depth + 1, level, cuts: place.cuts };
}

/**
 * `value` within `budget` bytes of JSON as the file holds it (indented from `level`, when
 * given) and RECORD_DEPTH levels: strings cut (ending with `…`), arrays cut after the whole items
 * that fit (the first one cut itself if need be), objects keeping every member they can name
 * (numbers, booleans and null first, then the others in order, each leaving room for the ones
 * after it: one that does not fit is an empty value of its type, and members past even that are
 * left out). Types never change, so a schema inferred from the cut value still describes the
 * whole. `undefined` (no params) stays as it is.
 */
export function bound(value: unknown, budget: number, level?: number): Bounded & { cuts: Cut[] } {
  const cuts = new Set<Cut>();
  return { ...boundAt(value, budget, { depth: 0, level, cuts }), cuts: [...cuts] };
}

function boundAt(value: unknown, budget: number, place: Place): Bounded {
  if (value === undefined) return { value, bytes: 0, truncated: false };
  if (value === null || typeof value === 'boolean' || typeof value === 'number') {
    return { value, bytes: JSON.stringify(value).length, truncated: false };
  }
  if (typeof value === 'string') {
    const bytes = stringBytes(value);
    if (bytes <= budget) return { value, bytes, truncated: false };
    const cut = budget < 2 + CUT_MARK.length * 3 ? '' : cutString(value, budget);
    place.cuts.add('size');
    return { value: cut, bytes: stringBytes(cut), truncated: true };
  }
  if (typeof value !== 'object') return { value: null, bytes: 4, truncated: true };
  if (place.depth >= RECORD_DEPTH) {
    const truncated = !isEmpty(value);
    if (truncated) place.cuts.add('depth');
    return { value: empty(value), bytes: 2, truncated };
  }
  if (Array.isArray(value)) return boundArray(value, budget, place);
  return boundObject(value as Record<string, unknown>, budget, place);
}

function isEmpty(value: object): boolean {
  return Array.isArray(value) ? value.length === 0 : Object.keys(value).length === 0;
}

function boundArray(items: unknown[], budget: number, place: Place): Bounded {
  const out: unknown[] = [];
  let content = 0;
  let truncated = false;
  for (const item of items) {
    const left = budget - layout(place, out.length + 1, false) - content;
    if (left <= 0) {
      truncated = true;
      place.cuts.add('size');
      break;
    }
    const kept = boundAt(item, left, inside(place));
    // Whole items only, but for the first: a list of one huge item still shows its start.
    if (kept.bytes > left || (kept.truncated && out.length > 0)) {
      truncated = true;
      place.cuts.add('size');
      break;
    }
    out.push(kept.value);
    content += kept.bytes;
    truncated ||= kept.truncated;
  }
  const bytes = layout(place, out.length, false) + content;
  return { value: truncated ? out : items, bytes, truncated };
}

function boundObject(object: Record<string, unknown>, budget: number, place: Place): Bounded {
  const entries = Object.entries(object);
  const kept = new Map<string, unknown>();
  let content = 0;
  let truncated = false;
  const room = () => budget - layout(place, kept.size + 1, true) - content;
  const take = (key: string, member: unknown, memberBytes: number) => {
    kept.set(key, member);
    content += stringBytes(key) + memberBytes;
  };
  const scalar = (v: unknown) => v === null || (typeof v !== 'object' && typeof v !== 'string');
  // Small members first: a total or a flag beside a huge list is worth keeping.
  for (const [key, member] of entries) {
    if (!scalar(member) || member === undefined) continue;
    const bytes = JSON.stringify(member).length;
    if (stringBytes(key) + bytes > room()) {
      truncated = true;
      place.cuts.add('size');
    } else take(key, member, bytes);
  }
  // The others in order, each leaving room for an empty value of every one after it.
  const others = entries.filter(([, member]) => !scalar(member));
  const perMember = layout(place, 2, true) - layout(place, 1, true);
  const least = others.map(([key]) => stringBytes(key) + 2 + perMember);
  let reserved = least.reduce((sum, n) => sum + n, 0);
  others.forEach(([key, member], i) => {
    reserved -= least[i]!;
    const left = room() - stringBytes(key) - reserved;
    const fits = left >= 2 ? boundAt(member, left, inside(place)) : undefined;
    if (fits && fits.bytes <= left) {
      take(key, fits.value, fits.bytes);
      truncated ||= fits.truncated;
    } else {
      if (stringBytes(key) + 2 <= room()) take(key, empty(member), 2);
      truncated = true;
      place.cuts.add('size');
    }
  });
  const bytes = layout(place, kept.size, true) + content;
  if (!truncated) return { value: object, bytes, truncated };
  // Members in their own order; fromEntries defines each (one named `__proto__` included).
  const value = Object.fromEntries(
    entries.filter(([k]) => kept.has(k)).map(([k]) => [k, kept.get(k)]),
  );
  return { value, bytes, truncated };
}

/**
 * Whether `value` nests deeper than RECORD_DEPTH levels: some value inside more than that many
 * arrays and objects (a stack, not recursion: any depth is measured).
 */
export function tooDeep(value: unknown): boolean {
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [next, depth] = stack.pop()!;
    if (next === null || typeof next !== 'object') continue;
    const members = Object.values(next);
    if (depth >= RECORD_DEPTH && members.length > 0) return true;
    for (const member of members) stack.push([member, depth + 1]);
  }
  return false;
}
