import { describe, expect, it } from 'vitest';
import { pkceMatches } from '../../../src/mock/core/secrets.js';
import { safeEqual } from '../../../src/util/secrets.js';
import { createHash } from 'node:crypto';

describe('secrets', () => {
  it('safeEqual compares any lengths', () => {
    expect(safeEqual('abc', 'abc')).toBe(true);
    expect(safeEqual('abc', 'abcd')).toBe(false);
  });
  it('PKCE S256 per RFC 7636 appendix B', () => {
    expect(
      pkceMatches(
        'S256',
        'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
        'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk',
      ),
    ).toBe(true);
    expect(pkceMatches('plain', 'abc', 'abd')).toBe(false);
  });
});

describe('secrets and PKCE: one hash per check, still exact', () => {
  it('S256 matches its own challenge only', () => {
    const verifier = 'dBjftJeZ4CVP-mJ92K1oXlZq8wvIYAbUu_tR2ilzW8c';
    const challenge = createHash('sha256').update(verifier).digest('base64url');
    expect(pkceMatches('S256', challenge, verifier)).toBe(true);
    expect(pkceMatches('S256', challenge, `${verifier}x`)).toBe(false);
    expect(pkceMatches('S256', challenge.slice(1), verifier)).toBe(false);
    expect(pkceMatches('S256', `${challenge.slice(0, -1)}é`, verifier)).toBe(false);
    expect(pkceMatches('plain', verifier, verifier)).toBe(true);
    expect(pkceMatches('plain', verifier, challenge)).toBe(false);
  });
});
