/**
 * Rotated refresh tokens remembered per grant, newest first out last: enough to recognise the
 * reuse of a recent one (SERVICE.md 4.3), while a grant refreshed many times holds only these.
 * An older one is simply unknown (invalid_grant as well, said otherwise).
 */
export const ROTATED_PER_GRANT = 8;

/** A rotated refresh token: its grant, and when it would have expired. */
export interface RotatedRecord {
  grantId: number;
  expiresAt: number;
}

/**
 * Refresh tokens already exchanged → their grant, kept until their own expiry only so that a
 * reuse is recognised (refused as used, or taken with the oldRefreshTokenAccepted quirk), at most
 * ROTATED_PER_GRANT per grant.
 */
export class RotatedTokens {
  private readonly byToken = new Map<string, RotatedRecord>();
  /** Each grant's rotated tokens, oldest first (bounded). */
  private readonly byGrant = new Map<number, string[]>();

  get size(): number {
    return this.byToken.size;
  }

  get(token: string): RotatedRecord | undefined {
    return this.byToken.get(token);
  }

  delete(token: string): void {
    this.byToken.delete(token);
  }

  clear(): void {
    this.byToken.clear();
    this.byGrant.clear();
  }

  /** Remembers a rotated refresh token, forgetting the grant's oldest beyond ROTATED_PER_GRANT. */
  remember(token: string, old: RotatedRecord): void {
    this.byToken.set(token, old);
    let list = this.byGrant.get(old.grantId);
    if (list === undefined) {
      list = [];
      this.byGrant.set(old.grantId, list);
    }
    list.push(token);
    if (list.length > ROTATED_PER_GRANT) this.byToken.delete(list.shift()!);
  }

  /** The rotated tokens of a grant. */
  of(grantId: number): readonly string[] {
    return this.byGrant.get(grantId) ?? [];
  }

  /** Forgets every rotated token of an ended grant. */
  forget(grantId: number): void {
    const list = this.byGrant.get(grantId);
    if (list === undefined) return;
    for (const token of list) this.byToken.delete(token);
    this.byGrant.delete(grantId);
  }

  /** Token → record; deleting while iterating is safe (a sweep does). */
  [Symbol.iterator](): MapIterator<[string, RotatedRecord]> {
    return this.byToken[Symbol.iterator]();
  }
}
