import { randomToken } from './secrets.js';
import { GrantTable } from './grant-table.js';
import { TokenIndex } from './token-index.js';
import { EndedTokens, type TokenKind } from './ended-tokens.js';
import {
  expiredWhy,
  expireTokens,
  issuePair,
  kindIn,
  newGrant,
  type Authorization,
  type CodeRecord,
  type GrantRecord,
  type Lifetimes,
  type TokenPair,
  type TokenRecord,
} from './grant-transitions.js';
import { RotatedTokens } from './rotated-tokens.js';
import { SlicedSweep } from './sliced-sweep.js';
import {
  grantFromSnapshot,
  highestGrantId,
  type StateChange,
  type StateSnapshot,
} from './state-snapshot.js';

export { ROTATED_PER_GRANT } from './rotated-tokens.js';

const SWEEP_EVERY_MS = 10_000;
/** Entries looked at between two clock reads of a sweep slice. */
const SWEEP_STEP = 512;

/**
 * The mock's memory: codes and grants, tokens in a Map from token to grant id, and a virtual
 * clock (wall clock + offset). It applies the transitions of grant-transitions.ts to its tables,
 * remembers why tokens ended, and tells `onChange` of each change. Expired entries go on lookup
 * and in a sliced sweep (SlicedSweep) at most every 10 s of virtual time.
 *
 * The class stays one: each operation changes the tables, the record of why tokens ended and the
 * journal together, and they agree only if one place does all three. The records' own
 * transitions, the sweep's slicing, the rotated tokens and the persisted form live beside it.
 */
export class MockState {
  readonly codes = new Map<string, CodeRecord>();
  readonly grants = new GrantTable<GrantRecord>();
  /** Live access and refresh tokens → grant id. */
  readonly tokens = new TokenIndex();
  /** Rotated refresh tokens → grant id and expiry. */
  readonly rotated = new RotatedTokens();
  offsetSeconds = 0;
  /** The refreshAfterExpiry quirk (SPEC §7): refresh tokens then live their own lifetime. */
  refreshOutlivesAccess: () => boolean = () => false;
  private readonly sweeper = new SlicedSweep(
    () => this.sweepSteps(),
    () => this.now(),
    SWEEP_EVERY_MS,
  );
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
    this.endings.clear();
    this.sweeper.cancel();
    this.offsetSeconds = 0;
    this.onChange?.({ kind: 'reset' });
  }

  /** Issues a code after approval (SERVICE.md 4.1). */
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
      const kind = kindIn(grant, token);
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

  /** Removes every expired code, token and grant, at once (restore, tests). */
  sweep(): void {
    this.sweeper.runAll();
  }

  /** Whether a sweep is still under way (it continues in later event-loop turns). */
  get sweeping(): boolean {
    return this.sweeper.running;
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
    let grant: GrantRecord | undefined;
    const expired = (token: string, kind: TokenKind, at: number): void => {
      this.tokens.delete(token);
      this.ended(token, kind, expiredWhy(kind, grant!), grant, at);
    };
    for (const [id, live] of this.grants.live()) {
      grant = live;
      if (expireTokens(grant, now, expired)) {
        this.grants.delete(id);
        this.rotated.forget(id);
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
