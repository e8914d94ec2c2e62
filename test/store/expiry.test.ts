import { describe, expect, it } from 'vitest';
import {
  canRefresh,
  isExpired,
  isRefreshDue,
  refreshMarginSeconds,
  secondsLeft,
} from '../../src/store/expiry.js';

const tokens = (lifetimeSeconds: number | null, refreshToken: string | null = 'R') => ({
  accessToken: 'A',
  refreshToken,
  obtainedAt: 0,
  expiresAt: lifetimeSeconds === null ? null : lifetimeSeconds * 1000,
});

describe('refresh margin (SPEC §3: max(60 s, 10 % of lifetime))', () => {
  it('uses 60 s for short lifetimes and 10 % for long ones', () => {
    expect(refreshMarginSeconds(tokens(300))).toBe(60);
    expect(refreshMarginSeconds(tokens(3600))).toBe(360);
    expect(refreshMarginSeconds(tokens(30 * 86_400))).toBe(259_200);
  });
  it('takes the profile margin when configured', () => {
    expect(refreshMarginSeconds(tokens(3600), 10)).toBe(10);
  });
  it('is due just inside the margin, not just outside', () => {
    const t = tokens(3600);
    expect(isRefreshDue(t, (3600 - 361) * 1000)).toBe(false);
    expect(isRefreshDue(t, (3600 - 359) * 1000)).toBe(true);
    expect(isRefreshDue(tokens(30), 0)).toBe(true);
  });
  it('never refreshes proactively when the expiry is unknown', () => {
    expect(isRefreshDue(tokens(null), 10 ** 12)).toBe(false);
    expect(secondsLeft(tokens(null), 0)).toBeNull();
    expect(isExpired(tokens(null), 10 ** 12)).toBe(false);
  });
  it('knows when a refresh is still possible (SERVICE.md §4.3: before expiry)', () => {
    expect(canRefresh(tokens(60), 59_000)).toBe(true);
    expect(canRefresh(tokens(60), 60_000)).toBe(false);
    expect(canRefresh(tokens(60, null), 0)).toBe(false);
  });
});
