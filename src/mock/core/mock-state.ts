import { randomToken } from './secrets.js';
import { GrantTable } from './grant-table.js';
import { TokenIndex } from './token-index.js';
import { EndedTokens, type TokenKind } from './ended-tokens.js';

/** An issued authorization code (SERVICE.md 2.2) and what it is bound to. */
export interface CodeRecord {
  clientId: string;
  redirectUri: string;
  user: string;
  scopes: string[];
  challenge?: string;
  challengeMethod?: 'S256' | 'plain';
  expiresAt: number;
  /** Set once exchanged: the grant its tokens belong to (replay revokes it). */
  grantId?: number;
}

/** One authorization: the live token pair of a code or a mint, across refresh rotations. */
export interface GrantRecord {
  clientId: string;
  user: string;
  scopes: string[];
  access?: string;
  accessExpiresAt?: number;
  refresh?: string;
  /** A refresh token is usable only while its access token is unexpired (SERVICE.md 4.3). */
  refreshExpiresAt?: number;
  /**
   * The refresh token came back unchanged from a refresh (quirk refreshRotation false) and counts
   * as used: a refresh with it again is a reuse (refused unless oldRefreshTokenAccepted).
   */
  refreshUsed?: boolean;
}

/** A token as looked up (a view; the store keeps token → grant id only). */
export interface TokenRecord {
  kind: 'access' | 'refresh';
  grantId: number;
  expiresAt: number;
  /** A refresh token already exchanged: kept until expiry so that its reuse is recognised. */
  rotated?: boolean;
}

/** A live access token as the API sees it. */
export interface Authorization {
  clientId: string;
  user: string;
  scopes: string[];
}

/** Token endpoint success (SERVICE.md 2.3); `expires_in` is seconds as a string (SPEC §5). */
export interface TokenPair {
  access_token: string;
  /** Only for requests made the RFC 6749 way (§5.1), added by the token route. */
  token_type?: 'Bearer';
  expires_in: string;
  refresh_token: string;
}

export interface Lifetimes {
  codeSeconds: number;
  accessSeconds: number;
  refreshSeconds: number;
}

/** The persisted form (state file). */
export interface StateSnapshot {
  version: 1;
  offsetSeconds: number;
  /** The last grant id handed out (absent in files written before it was kept). */
  grantSeq?: number;
  codes: [string, CodeRecord][];
  grants: [number, GrantRecord][];
  rotated: [string, { grantId: number; expiresAt: number }][];
}

/**
 * One change of the state, as the state file journals it (issue 14.5): puts carry the whole
 * record as it is now; expiry needs no entry (a replay drops what has expired).
 */
export type StateChange =
  | { kind: 'code'; code: string; record: CodeRecord }
  | { kind: 'grant'; id: number; record: GrantRecord }
  | { kind: 'grant-ended'; id: number }
  | { kind: 'rotated'; token: string; record: { grantId: number; expiresAt: number } }
  | { kind: 'clock'; offsetSeconds: number }
  | { kind: 'reset' };

const SWEEP_EVERY_MS = 10_000;
/** Longest stretch a sweep holds the event loop; the rest follows in later turns (issue 15). */
const SWEEP_SLICE_MS = 5;
/** Entries looked at between two clock reads of a sweep slice. */
const SWEEP_STEP = 512;
/**
 * Rotated refresh tokens remembered per grant, newest first out last: enough to recognise the
 * reuse of a recent one (SERVICE.md 4.3), while a grant refreshed 100 000 times holds 8, not
 * 100 000. An older one is simply unknown (invalid_grant, without ending the grant).
 */
export const ROTATED_PER_GRANT = 8;

/** Why an expired token expired: a refresh token that ends with its access token says so. */
function expiredWhy(kind: TokenKind, grant: GrantRecord): string {
  return kind === 'refresh' && grant.refreshExpiresAt === grant.accessExpiresAt
    ? 'expired with its access token (a refresh must come before the access token expires)'
    : 'expired';
}

/**
 * The mock's memory: codes and grants, tokens in a Map from token to grant id, and a virtual
 * clock (wall clock + offset). Expired entries go on lookup and in a sweep at most every 10 s,
 * which runs in slices of at most ~5 ms so that purging a million tokens never stalls a request;
 * a pair costs ~350 bytes, so 100 000 live pairs stay well under the RSS budget. Fields of a
 * grant are set to undefined, never deleted: `delete` turns each object into a slow dictionary
 * (a 1M-token purge used to double the RSS).
 */
export class MockState {
  readonly codes = new Map<string, CodeRecord>();
  readonly grants = new GrantTable<GrantRecord>();
  /** Live access and refresh tokens → grant id. */
  readonly tokens = new TokenIndex();
  /** Rotated refresh tokens → grant id and expiry. */
  readonly rotated = new Map<string, { grantId: number; expiresAt: number }>();
  offsetSeconds = 0;
  /** The refreshAfterExpiry quirk (SPEC §7): refresh tokens then live their own lifetime. */
  refreshOutlivesAccess: () => boolean = () => false;
  private lastSweep = 0;
  /** The sweep under way, continued slice by slice; undefined when none is. */
  private sweeper: Generator<void, void, void> | undefined;
  /** Rotated refresh tokens of each grant that has rotated, oldest first (bounded). */
  private readonly rotatedOf = new Map<number, string[]>();
  private grantSeq = 0;
  private readonly scopeLists = new Map<string, string[]>();
  /** Why recently ended tokens ended (SPEC §8: a refusal's reason names the cause). */
  private readonly endings = new EndedTokens();

  constructor(
    readonly lifetimes: Lifetimes,
    private readonly wallClock: () => number = Date.now,
    /**
     * Told every change, before the answer that reveals it (the state file journals them); unset
     * without a state file, so that no change record is even built (`this.onChange?.(…)`).
     */
    public onChange: ((change: StateChange) => void) | undefined = undefined,
  ) {}

  /** Virtual now in ms. */
  now(): number {
    return this.wallClock() + this.offsetSeconds * 1000;
  }

  /** Moves the virtual clock forward (POST /_mock/clock); the caller checks the range. */
  advance(seconds: number): void {
    this.offsetSeconds += seconds;
    this.onChange?.({ kind: 'clock', offsetSeconds: this.offsetSeconds });
  }

  /** Forgets everything (POST /_mock/reset). */
  reset(): void {
    this.codes.clear();
    this.grants.clear();
    this.tokens.clear();
    this.rotated.clear();
    this.rotatedOf.clear();
    this.endings.clear();
    this.sweeper = undefined;
    this.offsetSeconds = 0;
    this.onChange?.({ kind: 'reset' });
  }

  /** Issues a code after approval (SERVICE.md 4.1). */
  issueCode(record: Omit<CodeRecord, 'expiresAt' | 'grantId'>): string {
    const code = randomToken();
    this.maybeSweep();
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

  /**
   * A code within its validity, or a used one whose tokens live on (SPEC §5: a second use revokes
   * them, however late it comes); other expired ones are dropped.
   */
  findCode(code: string): CodeRecord | undefined {
    const record = this.codes.get(code);
    if (record && this.codeIsGone(record, this.now())) {
      this.codes.delete(code);
      return undefined;
    }
    return record;
  }

  /** Expired, and not a used code whose grant still holds tokens. */
  private codeIsGone(record: CodeRecord, now: number): boolean {
    if (record.expiresAt > now) return false;
    return record.grantId === undefined || !this.grants.has(record.grantId);
  }

  /** Remembers why `token` (of `kind`, of `grant`) stopped working. */
  private ended(
    token: string | undefined,
    kind: TokenKind,
    why: string,
    grant: GrantRecord | undefined,
    at = this.now(),
  ): void {
    this.endings.add(token, kind, why, at, grant);
  }

  /**
   * Why a token presented as `kind` is not usable, as one line for the log and the journal (SPEC
   * §8): expired, replaced by a refresh, revoked and how, another kind of token, or unknown.
   */
  refusal(token: string, kind: TokenKind): { reason: string; user?: string; client?: string } {
    return { reason: this.endings.reason(token, kind), ...this.endings.owner(token) };
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

  /** The live grant behind an access token, or undefined (unknown, expired, revoked). */
  authenticate(accessToken: string): Authorization | undefined {
    // The hot path of every API call: no record allocated for a live token.
    const grantId = this.tokens.get(accessToken);
    if (grantId === undefined) return undefined;
    const grant = this.grants.get(grantId);
    if (grant?.access === accessToken && grant.accessExpiresAt! > this.now()) return grant;
    this.liveToken(accessToken); // drops it if it expired (and says so in `endings`)
    return undefined;
  }

  /** A token that is neither expired nor revoked (rotated refresh tokens included), or undefined. */
  liveToken(token: string): TokenRecord | undefined {
    const now = this.now();
    const grantId = this.tokens.get(token);
    if (grantId !== undefined) {
      const grant = this.grants.get(grantId);
      const kind =
        grant?.access === token ? 'access' : grant?.refresh === token ? 'refresh' : undefined;
      const expiresAt =
        kind === 'access' ? grant!.accessExpiresAt! : (grant?.refreshExpiresAt ?? 0);
      if (kind === undefined || expiresAt <= now) {
        if (kind !== undefined) this.ended(token, kind, expiredWhy(kind, grant!), grant, expiresAt);
        this.tokens.delete(token);
        return undefined;
      }
      return { kind, grantId, expiresAt };
    }
    const old = this.rotated.get(token);
    if (!old) return undefined;
    if (old.expiresAt <= now || !this.grants.has(old.grantId)) {
      this.rotated.delete(token);
      return undefined;
    }
    return { kind: 'refresh', grantId: old.grantId, expiresAt: old.expiresAt, rotated: true };
  }

  grantOf(record: TokenRecord): GrantRecord | undefined {
    return this.grants.get(record.grantId);
  }

  /**
   * Refresh rotation (SERVICE.md 4.3): a new pair; the old pair dies at once. `keepRefresh` (the
   * refreshRotation quirk, SPEC §7) answers with a new access token and the same refresh token,
   * which is then a used one (GrantRecord.refreshUsed).
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
      // Kept until its own expiry only so that a reuse is recognised and the grant revoked.
      const rotated = {
        grantId: record.grantId,
        expiresAt: grant.refreshExpiresAt ?? record.expiresAt,
      };
      this.remember(grant.refresh, rotated);
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
    for (const token of this.rotatedOf.get(grantId) ?? []) this.ended(token, 'refresh', why, grant);
    this.grants.delete(grantId);
    this.forgetRotated(grantId);
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

  /** Removes every expired code, token and grant, at once (restore, tests). */
  sweep(): void {
    this.lastSweep = this.now();
    this.sweeper = undefined;
    const steps = this.sweepSteps();
    while (!steps.next().done);
  }

  /** Whether a sweep is still under way (it continues in later event-loop turns). */
  get sweeping(): boolean {
    return this.sweeper !== undefined;
  }

  /**
   * The sweep as steps of SWEEP_STEP entries; lookups check expiry, so a partial sweep is safe.
   * The clock is read again at every step: a clock moved on mid-sweep applies to the rest.
   */
  private *sweepSteps(): Generator<void, void, void> {
    let now = this.now();
    let n = 0;
    for (const [code, record] of this.codes) {
      if (this.codeIsGone(record, now)) this.codes.delete(code);
      if (++n % SWEEP_STEP === 0) {
        yield;
        now = this.now();
      }
    }
    // Live: grants deleted or added meanwhile are fine (those added are not expired).
    for (const [id, grant] of this.grants.live()) {
      if (grant.access !== undefined && grant.accessExpiresAt! <= now) {
        this.tokens.delete(grant.access);
        this.ended(
          grant.access,
          'access',
          expiredWhy('access', grant),
          grant,
          grant.accessExpiresAt,
        );
        grant.access = undefined;
      }
      if (grant.refresh !== undefined && grant.refreshExpiresAt! <= now) {
        this.tokens.delete(grant.refresh);
        this.ended(
          grant.refresh,
          'refresh',
          expiredWhy('refresh', grant),
          grant,
          grant.refreshExpiresAt,
        );
        grant.refresh = undefined;
      }
      const fresh = grant.accessExpiresAt === undefined && grant.refreshExpiresAt === undefined;
      if (!fresh && grant.access === undefined && grant.refresh === undefined) {
        this.grants.delete(id);
        this.forgetRotated(id);
      }
      if (++n % SWEEP_STEP === 0) {
        yield;
        now = this.now();
      }
    }
    for (const [token, old] of this.rotated) {
      if (old.expiresAt <= now || !this.grants.has(old.grantId)) this.rotated.delete(token);
      if (++n % SWEEP_STEP === 0) {
        yield;
        now = this.now();
      }
    }
  }

  /** Runs the sweep under way for one slice, then yields the event loop until the next turn. */
  private readonly continueSweep = (): void => {
    const sweeper = this.sweeper;
    if (sweeper === undefined) return;
    const deadline = performance.now() + SWEEP_SLICE_MS;
    do {
      if (sweeper.next().done) {
        if (this.sweeper === sweeper) this.sweeper = undefined;
        return;
      }
    } while (performance.now() < deadline);
    // Unref'd: a sweep never keeps a process (or a test) alive.
    setImmediate(this.continueSweep).unref();
  };

  /** Remembers a rotated refresh token, forgetting the grant's oldest beyond ROTATED_PER_GRANT. */
  private remember(token: string, old: { grantId: number; expiresAt: number }): void {
    this.rotated.set(token, old);
    let list = this.rotatedOf.get(old.grantId);
    if (list === undefined) {
      list = [];
      this.rotatedOf.set(old.grantId, list);
    }
    list.push(token);
    if (list.length > ROTATED_PER_GRANT) this.rotated.delete(list.shift()!);
  }

  private forgetRotated(grantId: number): void {
    const list = this.rotatedOf.get(grantId);
    if (list === undefined) return;
    for (const token of list) this.rotated.delete(token);
    this.rotatedOf.delete(grantId);
  }

  snapshot(): StateSnapshot {
    return {
      version: 1,
      offsetSeconds: this.offsetSeconds,
      grantSeq: this.grantSeq,
      codes: [...this.codes],
      grants: [...this.grants],
      rotated: [...this.rotated],
    };
  }

  /**
   * Loads a snapshot. Grant ids are never reused: a used code or a rotated token still names its
   * (maybe revoked) grant, and a replay must not end an unrelated new one.
   */
  restore(snapshot: StateSnapshot): void {
    this.offsetSeconds = snapshot.offsetSeconds;
    let seq = Math.max(this.grantSeq, snapshot.grantSeq ?? 0);
    for (const [k, v] of snapshot.codes) {
      this.codes.set(k, v);
      if (v.grantId !== undefined) seq = Math.max(seq, v.grantId);
    }
    for (const [id, grant] of snapshot.grants) {
      this.grants.set(id, {
        clientId: grant.clientId,
        user: grant.user,
        scopes: this.intern(grant.scopes),
        access: grant.access,
        accessExpiresAt: grant.accessExpiresAt,
        refresh: grant.refresh,
        refreshExpiresAt: grant.refreshExpiresAt,
        refreshUsed: grant.refreshUsed === true ? true : undefined,
      });
      if (grant.access) this.tokens.set(grant.access, id);
      if (grant.refresh) this.tokens.set(grant.refresh, id);
      seq = Math.max(seq, id);
    }
    for (const [k, v] of snapshot.rotated) {
      this.remember(k, v);
      seq = Math.max(seq, v.grantId);
    }
    this.grantSeq = seq;
    this.sweep();
  }

  private newGrant(from: Authorization): number {
    this.maybeSweep();
    this.grantSeq += 1;
    // Every field from the start: one object shape for all grants.
    this.grants.set(this.grantSeq, {
      clientId: from.clientId,
      user: from.user,
      scopes: this.intern(from.scopes),
      access: undefined,
      accessExpiresAt: undefined,
      refresh: undefined,
      refreshExpiresAt: undefined,
      // undefined unless true: a state file without it stays readable by older versions.
      refreshUsed: undefined,
    });
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
    const now = this.now();
    const access = randomToken();
    grant.access = access;
    grant.accessExpiresAt = now + this.lifetimes.accessSeconds * 1000;
    if (grant.refresh !== refresh) grant.refreshUsed = undefined;
    grant.refresh = refresh;
    const refreshExpiresAt = now + this.lifetimes.refreshSeconds * 1000;
    grant.refreshExpiresAt = this.refreshOutlivesAccess()
      ? refreshExpiresAt
      : Math.min(refreshExpiresAt, grant.accessExpiresAt);
    this.tokens.set(access, grantId);
    this.tokens.set(refresh, grantId);
    this.onChange?.({ kind: 'grant', id: grantId, record: grant });
    return {
      access_token: access,
      // Whole seconds left, rounded down (never more than the truth; ≥ 1 as TTLs are ≥ 1 s).
      expires_in: String(Math.max(1, Math.floor((grant.accessExpiresAt - now) / 1000))),
      refresh_token: refresh,
    };
  }

  /** Starts a sweep when the last began 10 s ago or more (virtual time); it runs in slices. */
  private maybeSweep(): void {
    if (this.sweeper !== undefined || this.now() - this.lastSweep < SWEEP_EVERY_MS) return;
    this.lastSweep = this.now();
    this.sweeper = this.sweepSteps();
    this.continueSweep();
  }
}
