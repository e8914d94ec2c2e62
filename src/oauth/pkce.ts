import { createHash } from 'node:crypto';
import { random256 } from '../util/secrets.js';

/** A PKCE pair (RFC 7636 §4.1–4.2): the verifier stays here, the S256 challenge goes out. */
export interface Pkce {
  verifier: string;
  challenge: string;
  method: 'S256';
}

/** 32 random bytes as base64url: 256 bits, above the 128 SPEC §3 asks of `state` (RFC 6749 §10.12). */
export function randomState(): string {
  return random256();
}

/** S256 challenge of a verifier (RFC 7636 §4.2). */
export function s256(verifier: string): string {
  return createHash('sha256').update(verifier, 'ascii').digest('base64url');
}

/** Fresh verifier (43 chars of base64url, RFC 7636 §4.1) and its S256 challenge. */
export function createPkce(): Pkce {
  const verifier = random256();
  return { verifier, challenge: s256(verifier), method: 'S256' };
}
