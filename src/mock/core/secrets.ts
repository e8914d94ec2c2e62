import { nodeCrypto } from '../../util/node-crypto.js';
import { safeEqual } from '../../util/secrets.js';

/** 256 random bits, base64url: codes, access and refresh tokens (RFC 6749 §10.10). */
export function randomToken(): string {
  // Filled 128 tokens at a time: one randomBytes() per token costs a native allocation each,
  // which a mock minting tokens by the hundred thousand pays for in memory.
  if (poolOffset === pool.length) {
    nodeCrypto().randomFillSync(pool);
    poolOffset = 0;
  }
  poolOffset += 32;
  return pool.toString('base64url', poolOffset - 32, poolOffset);
}

const pool = Buffer.alloc(32 * 128);
let poolOffset = pool.length;

/** RFC 7636 §4.6: does `verifier` match `challenge` under `method` (S256 or plain)? */
export function pkceMatches(
  method: 'S256' | 'plain',
  challenge: string,
  verifier: string,
): boolean {
  if (method === 'plain') return safeEqual(verifier, challenge);
  // One hash per check: the verifier's S256 is compared as it stands with the challenge,
  // in constant time. The challenge is no secret (it travelled in the authorization URL), so its
  // length may decide early; the derived value is always 43 characters.
  // Not oauth/pkce.ts's s256: that module loads node:crypto eagerly, which the mock avoids.
  const crypto = nodeCrypto();
  const derived = Buffer.from(crypto.hash('sha256', verifier, 'base64url'));
  const expected = Buffer.from(challenge);
  return derived.length === expected.length && crypto.timingSafeEqual(derived, expected);
}
