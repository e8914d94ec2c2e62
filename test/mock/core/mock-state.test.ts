import { describe, expect, it, vi } from 'vitest';
import { MockState } from '../../../src/mock/core/mock-state.js';
import { ROTATED_PER_GRANT } from '../../../src/mock/core/rotated-tokens.js';

describe('MockState', () => {
  it('purges expired tokens so memory stays bounded', async () => {
    let now = 0;
    const state = new MockState(
      { codeSeconds: 60, accessSeconds: 60, refreshSeconds: 600 },
      () => now,
    );
    for (let i = 0; i < 1000; i++) state.mint({ clientId: 'c', user: 'u', scopes: ['crm'] });
    expect(state.tokens.size).toBe(2000);
    now += 61_000;
    state.mint({ clientId: 'c', user: 'u', scopes: ['crm'] });
    // The sweep runs in 5 ms slices: on a loaded machine it may go on in later turns (it failed
    // with 978 left when the test read the sizes at once). Waited for, bounded.
    for (let turn = 0; state.sweeping && turn < 1000; turn++)
      await new Promise((resolve) => setImmediate(resolve));
    expect(state.sweeping).toBe(false);
    expect(state.tokens.size).toBe(2);
    expect(state.grants.size).toBe(1);
    expect(state.rotated.size).toBe(0);
  });
  it('a refresh token handed back unchanged is marked used, in the snapshot only when it is', () => {
    const lifetimes = { codeSeconds: 60, accessSeconds: 60, refreshSeconds: 600 };
    const state = new MockState(lifetimes, () => 0);
    const pair = state.mint({ clientId: 'c', user: 'u', scopes: ['crm'] });
    // Older versions refuse unknown members: nothing is written while nothing is used.
    expect(JSON.stringify(state.snapshot())).not.toContain('refreshUsed');
    state.rotate(state.liveToken(pair.refresh_token)!, true);
    expect(JSON.stringify(state.snapshot())).toContain('"refreshUsed":true');
    const again = new MockState(lifetimes, () => 0);
    again.restore(JSON.parse(JSON.stringify(state.snapshot())));
    expect(again.grantOf(again.liveToken(pair.refresh_token)!)?.refreshUsed).toBe(true);
  });
  it('restore never hands out a grant id that a code or rotated token still names', () => {
    const lifetimes = { codeSeconds: 60, accessSeconds: 60, refreshSeconds: 600 };
    const scopes = ['crm'];
    const state = new MockState(lifetimes, () => 0);
    // A file written before grantSeq was kept: the highest id survives only in codes and rotated.
    state.restore({
      version: 1,
      offsetSeconds: 0,
      codes: [
        [
          'c',
          {
            clientId: 'c',
            redirectUri: 'http://x/',
            user: 'u',
            scopes,
            expiresAt: 1e6,
            grantId: 4,
          },
        ],
      ],
      grants: [[2, { clientId: 'c', user: 'u', scopes }]],
      rotated: [['t', { grantId: 9, expiresAt: 1e6 }]],
    });
    state.mint({ clientId: 'c', user: 'u', scopes });
    expect([...state.grants.keys()]).toContain(10);
    const again = new MockState(lifetimes, () => 0);
    again.restore({ ...state.snapshot(), codes: [], rotated: [] });
    expect(again.snapshot().grantSeq).toBe(10);
  });
  it('expires_in is whole seconds rounded down', () => {
    const state = new MockState(
      { codeSeconds: 60, accessSeconds: 1.9, refreshSeconds: 600 },
      () => 5,
    );
    expect(state.mint({ clientId: 'c', user: 'u', scopes: ['crm'] }).expires_in).toBe('1');
  });
});

describe('MockState memory', () => {
  const lifetimes = { codeSeconds: 60, accessSeconds: 3600, refreshSeconds: 86400 };
  const grant = { clientId: 'c', user: 'alice', scopes: ['crm'] };

  it('remembers a bounded number of rotated refresh tokens per grant, the newest', () => {
    const state = new MockState(lifetimes, () => 0);
    let pair = state.mint(grant);
    const old: string[] = [];
    for (let i = 0; i < ROTATED_PER_GRANT + 5; i++) {
      old.push(pair.refresh_token);
      pair = state.rotate(state.liveToken(pair.refresh_token)!);
    }
    expect(state.rotated.size).toBe(ROTATED_PER_GRANT);
    expect(state.liveToken(old[0]!)).toBeUndefined();
    expect(state.liveToken(old.at(-1)!)).toMatchObject({ kind: 'refresh', rotated: true });
    state.revokeGrant(state.liveToken(pair.access_token)!.grantId);
    expect(state.rotated.size).toBe(0);
  });

  it('purges in slices: lookups stay right meanwhile, and everything expired goes', async () => {
    // A slice ends once 5 ms have passed; here each reading of the clock is 1 ms later, so a slice
    // looks at a few steps of entries whatever the machine's speed or load.
    let ms = 0;
    const clock = vi.spyOn(performance, 'now').mockImplementation(() => ++ms);
    try {
      let now = 0;
      const state = new MockState(lifetimes, () => now);
      const pairs = Array.from({ length: 20_000 }, () => state.mint(grant));
      now = 2 * 86400 * 1000;
      const fresh = state.mint(grant); // starts the sweep; its first slice runs at once
      // The first slice gave the event loop back with most of the purge still to do.
      expect(state.sweeping).toBe(true);
      expect(state.tokens.size).toBeGreaterThan(20_000);
      expect(state.authenticate(pairs[19_999]!.access_token)).toBeUndefined();
      expect(state.authenticate(fresh.access_token)).toMatchObject({ user: 'alice' });
      let turns = 0;
      for (; state.sweeping; turns++) await new Promise((r) => setImmediate(r));
      expect(turns).toBeGreaterThan(1);
      expect(state.grants.size).toBe(1);
      expect(state.tokens.size).toBe(2);
      expect(state.authenticate(fresh.access_token)).toMatchObject({ user: 'alice' });
    } finally {
      clock.mockRestore();
    }
  });

  it('a revoked access token leaves its grant and refresh token working', () => {
    const state = new MockState(lifetimes, () => 0);
    const pair = state.mint(grant);
    state.revokeToken(pair.access_token, state.liveToken(pair.access_token)!);
    expect(state.authenticate(pair.access_token)).toBeUndefined();
    expect(state.liveToken(pair.refresh_token)).toMatchObject({ kind: 'refresh' });
    expect(JSON.stringify(state.snapshot().grants[0]![1])).not.toContain('"access"');
  });
});
