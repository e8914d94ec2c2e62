import type * as NodeCrypto from 'node:crypto';

let loadedCrypto: typeof NodeCrypto | undefined;

/** node:crypto on first use: `dasvc mock` listens without loading its ~20 internal modules. */
export function nodeCrypto(): typeof NodeCrypto {
  return (loadedCrypto ??= process.getBuiltinModule('node:crypto'));
}

/** 256 random bits as base64url (43 chars): above the 128 bits RFC 6749 §10.10 asks of secrets. */
export function random256(): string {
  return nodeCrypto().randomBytes(32).toString('base64url');
}

/** Constant-time string equality on SHA-256 digests, so lengths leak nothing either. */
export function safeEqual(a: string, b: string): boolean {
  const { createHash, timingSafeEqual } = nodeCrypto();
  const da = createHash('sha256').update(a).digest();
  const db = createHash('sha256').update(b).digest();
  return timingSafeEqual(da, db);
}
