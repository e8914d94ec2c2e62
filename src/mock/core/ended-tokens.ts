// Why recently ended tokens ended (SPEC §8: a refusal's reason names its cause): a bounded
// memory, the newest kept. Not persisted: after a restart or reset a token is simply unknown.

export type TokenKind = 'access' | 'refresh';

/** Why a token stopped working, when (virtual ms), and whose it was. */
interface Ending {
  kind: TokenKind;
  why: string;
  at: number;
  user: string | undefined;
  client: string | undefined;
}

/** Whose a token was (a grant's user and client). */
export interface TokenOwner {
  user: string;
  clientId: string;
}

/**
 * Token → ending, for the last `capacity` tokens that ended. The order of arrival is a ring of
 * slots, so the oldest goes in O(1): asking a Map for its first key after many deletions walks
 * over their holes first (10 000 endings made a purge of a million pairs take 11 s, not 1.3).
 */
export class EndedTokens {
  private readonly byToken = new Map<string, Ending>();
  private readonly ring: (string | undefined)[];
  private head = 0;

  constructor(readonly capacity = 10_000) {
    this.ring = new Array<string | undefined>(capacity);
  }

  add(
    token: string | undefined,
    kind: TokenKind,
    why: string,
    at: number,
    owner?: TokenOwner,
  ): void {
    if (token === undefined) return;
    const known = this.byToken.has(token);
    this.byToken.set(token, { kind, why, at, user: owner?.user, client: owner?.clientId });
    if (known) return;
    const oldest = this.ring[this.head];
    if (oldest !== undefined) this.byToken.delete(oldest);
    this.ring[this.head] = token;
    this.head = (this.head + 1) % this.capacity;
  }

  /**
   * The reason a token presented as `kind` is refused, as one line: its ending (and the kind it
   * really was, when another was presented), or unknown.
   */
  reason(token: string, kind: TokenKind): string {
    const ending = this.byToken.get(token);
    if (!ending)
      return `unknown ${kind} token (never issued by this mock, or ended before its last restart or reset, or more than ${this.capacity} token endings ago)`;
    const wrongKind =
      ending.kind === kind ? '' : `${ending.kind} token sent as the ${kind} token: `;
    return `${wrongKind}${ending.kind} token ${ending.why} at ${new Date(ending.at).toISOString()}`;
  }

  /** The user and client of an ended token still remembered (SPEC §8: the log line names them). */
  owner(token: string): { user?: string; client?: string } {
    const ending = this.byToken.get(token);
    if (!ending) return {};
    return {
      ...(ending.user === undefined ? {} : { user: ending.user }),
      ...(ending.client === undefined ? {} : { client: ending.client }),
    };
  }

  clear(): void {
    this.byToken.clear();
    this.ring.fill(undefined);
    this.head = 0;
  }
}
