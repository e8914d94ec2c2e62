import type * as NodeCrypto from 'node:crypto';

let loadedCrypto: typeof NodeCrypto | undefined;

/** node:crypto on first use: `dasvc mock` listens without loading its ~20 internal modules. */
function crypto(): typeof NodeCrypto {
  return (loadedCrypto ??= process.getBuiltinModule('node:crypto'));
}

/** 256 random bits, base64url: codes, access and refresh tokens (RFC 6749 §10.10). */
export function randomToken(): string {
  // Filled 128 tokens at a time: one randomBytes() per token costs a native allocation each, and
  // 100 000 of them inflated peak RSS by ~70 MB.
  if (poolOffset === pool.length) {
    crypto().randomFillSync(pool);
    poolOffset = 0;
  }
  poolOffset += 32;
  return pool.toString('base64url', poolOffset - 32, poolOffset);
}

const pool = Buffer.alloc(32 * 128);
let poolOffset = pool.length;

/** Constant-time string equality on SHA-256 digests, so lengths leak nothing either. */
export function safeEqual(a: string, b: string): boolean {
  const { createHash, timingSafeEqual } = crypto();
  const da = createHash('sha256').update(a).digest();
  const db = createHash('sha256').update(b).digest();
  return timingSafeEqual(da, db);
}

/** RFC 7636 §4.6: does `verifier` match `challenge` under `method` (S256 or plain)? */
export function pkceMatches(
  method: 'S256' | 'plain',
  challenge: string,
  verifier: string,
): boolean {
  const derived =
    method === 'S256'
      ? crypto().createHash('sha256').update(verifier).digest('base64url')
      : verifier;
  return safeEqual(derived, challenge);
}
