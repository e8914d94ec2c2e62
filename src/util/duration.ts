import { UsageError } from '../errors.js';

/** The longest delay Node's timers hold (2^31 - 1 ms, 24.8 days): a longer one fires at once. */
export const MAX_TIMER_MS = 2_147_483_647;

/** A wait Node's timers hold as given: more than 0 ms, at most MAX_TIMER_MS. */
export function isTimerMs(ms: number): boolean {
  return typeof ms === 'number' && ms > 0 && ms <= MAX_TIMER_MS;
}

/**
 * A time limit given as text (`what` names the flag or variable), in ms: more than 0, and at
 * most MAX_TIMER_MS, past which the wait would end at once.
 */
export function timerMs(text: string, what: string): number {
  const seconds = parseDuration(text, what);
  if (!isTimerMs(seconds * 1000)) {
    throw new UsageError(
      `${what} must be more than 0 seconds and at most 24 days, got ${JSON.stringify(text)}`,
      { code: 'bad_duration' },
    );
  }
  return seconds * 1000;
}

/** 100 years in seconds: the longest lifetime dasvc believes; every date it makes stays representable. */
export const MAX_DURATION_SECONDS = 100 * 365.25 * 86_400;

/** The largest epoch ms a Date can hold (ECMA-262 §21.4.1.22); past it toISOString() throws. */
export const MAX_DATE_MS = 8.64e15;

const UNIT_SECONDS: Record<string, number> = { ms: 0.001, s: 1, m: 60, h: 3600, d: 86_400 };

/**
 * Parses a duration as SPEC §3 writes them (`90s`, `15m`, `1h`, `30d`, `250ms`) or as a bare
 * number of seconds; returns seconds. Compound forms (`1h30m`) are accepted too.
 */
export function parseDuration(input: string | number, what = 'duration'): number {
  if (typeof input === 'number') {
    if (Number.isFinite(input) && input >= 0) return input;
    throw new UsageError(`${what} must be a non-negative number of seconds, got ${input}`, {
      code: 'bad_duration',
    });
  }
  if (typeof input !== 'string') {
    throw new UsageError(
      `${what} must be a duration (e.g. "90s", "1h") or seconds, got ${typeof input}`,
      {
        code: 'bad_duration',
      },
    );
  }
  const text = input.trim();
  if (/^\d+(\.\d+)?$/.test(text)) return Number(text);
  const parts = [...text.matchAll(/(\d+(?:\.\d+)?)(ms|s|m|h|d)/g)];
  if (parts.length === 0 || parts.map((p) => p[0]).join('') !== text) {
    throw new UsageError(`${what}: cannot read "${input}" (use e.g. 90s, 15m, 1h, 30d)`, {
      code: 'bad_duration',
    });
  }
  return parts.reduce((sum, [, n, unit]) => sum + Number(n) * (UNIT_SECONDS[unit!] ?? 0), 0);
}

/** Formats seconds the way a human reads an expiry: `59m 58s`, `29d 23h`, `12s`. */
export function formatDuration(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  const units: [string, number][] = [
    ['d', 86_400],
    ['h', 3600],
    ['m', 60],
    ['s', 1],
  ];
  const out: string[] = [];
  let rest = s;
  for (const [unit, size] of units) {
    const n = Math.floor(rest / size);
    rest -= n * size;
    if (n > 0 || (unit === 's' && out.length === 0)) out.push(`${n}${unit}`);
    if (out.length === 2) break;
  }
  return out.join(' ');
}

/** ISO time to the second, for people: `2026-11-22T15:04:05Z`. */
export function isoSeconds(epochMs: number): string {
  return new Date(epochMs).toISOString().replace(/\.\d{3}Z$/, 'Z');
}
