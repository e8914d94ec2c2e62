import { GrantTable } from './grant-table.js';
import { TokenIndex } from './token-index.js';
import { EndedTokens, type TokenKind } from './ended-tokens.js';
import {
  expiredWhy,
  expireTokens,
  kindIn,
  type Authorization,
  type TokenRecord,
} from './grant-transitions.js';
import type { CodeRecord, GrantRecord } from '../../schemas/state-file.js';
import { RotatedTokens } from './rotated-tokens.js';
import { SlicedSweep } from './sliced-sweep.js';

const SWEEP_EVERY_MS = 10_000;
/** Entries looked at between two clock reads of a sweep slice. */
const SWEEP_STEP = 512;

/**
 * The mock's tables of codes, grants and tokens, read by virtual time: a lookup drops what has
 * expired (and remembers why the token ended), and a sliced sweep (SlicedSweep) removes the rest
 * at most every 10 s of virtual time. MockState adds the transitions that fill them.
 */
export abstract class ExpiryStore {
  readonly codes = new Map<string, CodeRecord>();
  readonly grants = new GrantTable<GrantRecord>();
  /** Live access and refresh tokens → grant id. */
  readonly tokens = new TokenIndex();
  /** Rotated refresh tokens → grant id and expiry. */
  readonly rotated = new RotatedTokens();
  protected readonly sweeper = new SlicedSweep(
    () => this.sweepSteps(),
    () => this.now(),
    SWEEP_EVERY_MS,
  );
  /** Why recently ended tokens ended (a refusal's reason names the cause). */
  private readonly endings = new EndedTokens();

  /** Virtual now in ms. */
  abstract now(): number;

  /** Empties every table and stops the sweep under way. */
  protected clear(): void {
    this.codes.clear();
    this.grants.clear();
    this.tokens.clear();
    this.rotated.clear();
    this.endings.clear();
    this.sweeper.cancel();
  }

  /**
   * A code within its validity, or a used one whose tokens live on (a second use revokes them,
   * however late it comes); other expired ones are dropped.
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
  protected ended(
    token: string | undefined,
    kind: TokenKind,
    why: string,
    grant: GrantRecord | undefined,
    at = this.now(),
  ): void {
    this.endings.add(token, kind, why, at, grant);
  }

  /**
   * Why a token presented as `kind` is not usable, as one line for the log and the journal:
   * expired, replaced by a refresh, revoked and how, another kind of token, or unknown.
   */
  refusal(token: string, kind: TokenKind): { reason: string; user?: string; client?: string } {
    return { reason: this.endings.reason(token, kind), ...this.endings.owner(token) };
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
}
