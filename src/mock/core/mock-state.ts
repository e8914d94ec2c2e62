import { randomToken } from './secrets.js';
import { ExpiryStore } from './expiry-store.js';
import {
  issuePair,
  newGrant,
  type Authorization,
  type Lifetimes,
  type TokenPair,
  type TokenRecord,
} from './grant-transitions.js';
import type { CodeRecord, StateChange } from '../../schemas/state-file.js';
import {
  grantFromSnapshot,
  highestGrantId,
  snapshotOf,
  type StateSnapshot,
} from './state-snapshot.js';

/**
 * The mock's memory: the tables of the expiry store (codes, grants, tokens) on a virtual clock
 * (wall clock + offset), and its persisted form. It applies the transitions of
 * grant-transitions.ts to the tables, remembers why tokens ended, and tells `onChange` of each
 * change: one class does all three, so that they agree.
 */
export class MockState extends ExpiryStore {
  offsetSeconds = 0;
  /** The refreshAfterExpiry quirk: refresh tokens then live their own lifetime. */
  refreshOutlivesAccess: () => boolean = () => false;
  private grantSeq = 0;
  private readonly scopeLists = new Map<string, string[]>();

  constructor(
    readonly lifetimes: Lifetimes,
    private readonly wallClock: () => number = Date.now,
    /**
     * Told every change, before the answer that reveals it (the state file journals them); unset
     * without a state file, so that no change record is even built (`this.onChange?.(…)`).
     */
    public onChange: ((change: StateChange) => void) | undefined = undefined,
  ) {
    super();
  }

  /** Virtual now in ms. */
  override now(): number {
    return this.wallClock() + this.offsetSeconds * 1000;
  }

  /** Moves the virtual clock forward (POST /_mock/clock); the caller checks the range. */
  advance(seconds: number): void {
    this.offsetSeconds += seconds;
    this.onChange?.({ kind: 'clock', offsetSeconds: this.offsetSeconds });
  }

  /** Forgets everything (POST /_mock/reset). */
  reset(): void {
    this.clear();
    this.offsetSeconds = 0;
    this.onChange?.({ kind: 'reset' });
  }

  /** Issues a code after approval. */
  issueCode(record: Omit<CodeRecord, 'expiresAt' | 'grantId'>): string {
    const code = randomToken();
    this.sweeper.maybeStart();
    // Every field from the start (one object shape; redemption sets grantId), no spread.
    const issued: CodeRecord = {
      clientId: record.clientId,
      redirectUri: record.redirectUri,
      user: record.user,
      scopes: this.intern(record.scopes),
      challenge: record.challenge,
      challengeMethod: record.challengeMethod,
      expiresAt: this.now() + this.lifetimes.codeSeconds * 1000,
      grantId: undefined,
    };
    this.codes.set(code, issued);
    this.onChange?.({ kind: 'code', code, record: issued });
    return code;
  }

  /** Marks a code used and issues its first token pair. */
  redeemCode(record: CodeRecord, code: string): TokenPair {
    const grantId = this.newGrant(record);
    record.grantId = grantId;
    this.onChange?.({ kind: 'code', code, record });
    return this.issuePair(grantId);
  }

  /** A second use of a code: revoke every token issued from it (RFC 6749 §4.1.2). */
  replayCode(record: CodeRecord): void {
    if (record.grantId !== undefined)
      this.revokeGrant(record.grantId, 'revoked: its authorization code was used a second time');
  }

  /** Issues tokens without a browser (POST /_mock/tokens). */
  mint(grant: Authorization): TokenPair {
    return this.issuePair(this.newGrant(grant));
  }

  /**
   * Refresh rotation: a new pair; the old pair dies at once. `keepRefresh` (the refreshRotation
   * quirk) answers with a new access token and the same refresh token, which is then a used one
   * (GrantRecord.refreshUsed).
   */
  rotate(record: TokenRecord, keepRefresh = false): TokenPair {
    const grant = this.grants.get(record.grantId)!;
    if (grant.access) this.tokens.delete(grant.access);
    const replaced = 'replaced by a refresh (a refresh ends the old pair at once)';
    this.ended(grant.access, 'access', replaced, grant);
    if (keepRefresh && grant.refresh) {
      grant.refreshUsed = true;
      return this.issuePair(record.grantId, grant.refresh);
    }
    if (grant.refresh) {
      this.tokens.delete(grant.refresh);
      // Kept until its own expiry only so that a reuse is recognised.
      const rotated = {
        grantId: record.grantId,
        expiresAt: grant.refreshExpiresAt ?? record.expiresAt,
      };
      this.rotated.remember(grant.refresh, rotated);
      // Said once the reuse check has forgotten it (its expiry, or more rotations since).
      this.ended(grant.refresh, 'refresh', replaced, grant);
      this.onChange?.({ kind: 'rotated', token: grant.refresh, record: rotated });
    }
    return this.issuePair(record.grantId);
  }

  /**
   * Ends a whole grant: its live pair, and (through the grant's absence) its rotated tokens;
   * `why` is what the log will say of them.
   */
  revokeGrant(grantId: number, why = 'revoked'): void {
    const grant = this.grants.get(grantId);
    if (!grant) return;
    if (grant.access) this.tokens.delete(grant.access);
    if (grant.refresh) this.tokens.delete(grant.refresh);
    this.ended(grant.access, 'access', why, grant);
    this.ended(grant.refresh, 'refresh', why, grant);
    for (const token of this.rotated.of(grantId)) this.ended(token, 'refresh', why, grant);
    this.grants.delete(grantId);
    this.rotated.forget(grantId);
    this.onChange?.({ kind: 'grant-ended', id: grantId });
  }

  /** Revokes one token (RFC 7009); a refresh token takes its grant's access token with it. */
  revokeToken(token: string, record: TokenRecord): void {
    if (record.kind === 'refresh') {
      this.revokeGrant(
        record.grantId,
        'revoked with its authorization (RFC 7009: a revoked refresh token ends its access token)',
      );
      return;
    }
    this.tokens.delete(token);
    const grant = this.grants.get(record.grantId);
    this.ended(token, 'access', 'revoked (RFC 7009)', grant);
    if (grant?.access === token) {
      grant.access = undefined;
      grant.accessExpiresAt = undefined;
      this.onChange?.({ kind: 'grant', id: record.grantId, record: grant });
    }
  }

  snapshot(): StateSnapshot {
    const { offsetSeconds, grantSeq, codes, grants, rotated } = this;
    return snapshotOf({ offsetSeconds, grantSeq, codes, grants, rotated });
  }

  /** Loads a snapshot (grant ids go on from the highest it names). */
  restore(snapshot: StateSnapshot): void {
    this.offsetSeconds = snapshot.offsetSeconds;
    for (const [code, record] of snapshot.codes) this.codes.set(code, record);
    for (const [id, grant] of snapshot.grants) {
      this.grants.set(id, grantFromSnapshot(grant, this.intern(grant.scopes)));
      if (grant.access) this.tokens.set(grant.access, id);
      if (grant.refresh) this.tokens.set(grant.refresh, id);
    }
    for (const [token, old] of snapshot.rotated) this.rotated.remember(token, old);
    this.grantSeq = highestGrantId(snapshot, this.grantSeq);
    this.sweep();
  }

  private newGrant(from: Authorization): number {
    this.sweeper.maybeStart();
    this.grantSeq += 1;
    this.grants.set(this.grantSeq, newGrant(from, this.intern(from.scopes)));
    return this.grantSeq;
  }

  /** One shared array per distinct scope list: 100 000 grants of "crm wiki" hold one array. */
  private intern(scopes: string[]): string[] {
    const key = scopes.join(' ');
    let shared = this.scopeLists.get(key);
    if (!shared) {
      shared = [...scopes];
      this.scopeLists.set(key, shared);
    }
    return shared;
  }

  private issuePair(grantId: number, refresh = randomToken()): TokenPair {
    const grant = this.grants.get(grantId)!;
    const access = randomToken();
    const pair = issuePair(
      grant,
      this.now(),
      this.lifetimes,
      this.refreshOutlivesAccess(),
      access,
      refresh,
    );
    this.tokens.set(access, grantId);
    this.tokens.set(refresh, grantId);
    this.onChange?.({ kind: 'grant', id: grantId, record: grant });
    return pair;
  }
}
