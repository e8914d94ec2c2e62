// The declarations of this file (emitted to dist/, reached from the package's exports through
// oauth/pkce) name no Node type: a consumer type-checks without @types/node.
import { nodeCrypto } from './node-crypto.js';

/** 256 random bits as base64url (43 chars): above the 128 bits RFC 6749 §10.10 asks of secrets. */
export function random256(): string {
  return nodeCrypto().randomBytes(32).toString('base64url');
}

/** SHA-256 of a secret: computed once for a stored secret, then compared with `matchesDigest`. */
function secretDigest(secret: string): Uint8Array {
  // The one-shot hash (Node 20.12+) builds no Hash object, so a check allocates less.
  return nodeCrypto().hash('sha256', secret, 'buffer');
}

/**
 * Constant-time: does `candidate` hash to `digest`? Comparing digests (always 32 bytes) leaks
 * neither content nor length, and costs one hash per check when the stored side is hashed once.
 */
function matchesDigest(candidate: string, digest: Uint8Array): boolean {
  return nodeCrypto().timingSafeEqual(secretDigest(candidate), digest);
}

/** Constant-time string equality on SHA-256 digests, so lengths leak nothing either. */
export function safeEqual(a: string, b: string): boolean {
  return matchesDigest(a, secretDigest(b));
}

/** Secrets are compared as zero-padded buffers of this many bytes; longer candidates by digest. */
const WIDTH = 128;

/**
 * A stored secret as it is compared: its first WIDTH bytes zero-padded, its byte length, and its
 * digest for candidates longer than WIDTH (computed on the first such candidate).
 */
interface StoredForm {
  padded: Buffer;
  length: number;
  digest: Uint8Array | undefined;
}

const storedForms = new WeakMap<object, StoredForm>();
let scratch: Buffer | undefined;

/**
 * Constant-time check of `candidate` against a stored secret that belongs to `owner` (a client
 * fixture, say); the stored side is prepared once per owner. A candidate of up to 128
 * bytes is written into a zeroed 128-byte buffer and compared with the stored secret's (its first
 * 128 bytes, zero-padded) by `timingSafeEqual`, then the byte lengths are compared: no hash on the
 * common path. A longer candidate is compared by SHA-256 digests. Which way
 * is taken depends on the candidate alone, so the time tells nothing of the secret or its length.
 */
export function matchesStored(owner: object, stored: string, candidate: string): boolean {
  let form = storedForms.get(owner);
  if (form === undefined) {
    const padded = Buffer.alloc(WIDTH);
    padded.write(stored, 'utf8'); // a longer secret is cut: its length never matches below
    form = { padded, length: Buffer.byteLength(stored), digest: undefined };
    storedForms.set(owner, form);
  }
  const length = Buffer.byteLength(candidate);
  if (length > WIDTH) {
    form.digest ??= secretDigest(stored);
    return matchesDigest(candidate, form.digest);
  }
  scratch ??= Buffer.alloc(WIDTH);
  scratch.fill(0);
  scratch.write(candidate, 'utf8');
  const same = nodeCrypto().timingSafeEqual(scratch, form.padded);
  // Both checks, combined without a branch on the first.
  return (Number(same) & Number(length === form.length)) === 1;
}
