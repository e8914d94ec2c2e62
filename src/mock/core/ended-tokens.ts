// Why recently ended tokens ended (SPEC §8: a refusal's reason names its cause): a bounded
// memory, the newest kept. Not persisted: after a restart or reset a token is simply unknown.

export type TokenKind = 'access' | 'refresh';

/** Whose a token was (a grant's user and client). */
export interface TokenOwner {
  user: string;
  clientId: string;
}

/**
 * Token → ending, for the last `capacity` tokens that ended. The order of arrival is a ring of
 * slots, so the oldest goes in O(1): asking a Map for its first key after many deletions walks
 * over their holes first, which makes a long purge many times slower.
 * An ending is kept in its slot's columns, not as an object per token: a refresh ends two tokens,
 * and objects that outlive a request are what the garbage collector copies and promotes.
 */
export class EndedTokens {
  /** Token → its slot. */
  private readonly slotOf = new Map<string, number>();
  private readonly tokens: (string | undefined)[];
  private readonly kinds: (TokenKind | undefined)[];
  private readonly whys: (string | undefined)[];
  /** When each ended (virtual ms). */
  private readonly ats: Float64Array;
  private readonly users: (string | undefined)[];
  private readonly clients: (string | undefined)[];
  private head = 0;

  constructor(readonly capacity = 10_000) {
    this.tokens = new Array<string | undefined>(capacity);
    this.kinds = new Array<TokenKind | undefined>(capacity);
    this.whys = new Array<string | undefined>(capacity);
    this.ats = new Float64Array(capacity);
    this.users = new Array<string | undefined>(capacity);
    this.clients = new Array<string | undefined>(capacity);
  }

  add(
    token: string | undefined,
    kind: TokenKind,
    why: string,
    at: number,
    owner?: TokenOwner,
  ): void {
    if (token === undefined) return;
    // A token that ended before keeps its place in the ring; its ending is the new one.
    let slot = this.slotOf.get(token);
    if (slot === undefined) {
      slot = this.head;
      const oldest = this.tokens[slot];
      if (oldest !== undefined) this.slotOf.delete(oldest);
      this.tokens[slot] = token;
      this.slotOf.set(token, slot);
      this.head = (slot + 1) % this.capacity;
    }
    this.kinds[slot] = kind;
    this.whys[slot] = why;
    this.ats[slot] = at;
    this.users[slot] = owner?.user;
    this.clients[slot] = owner?.clientId;
  }

  /**
   * The reason a token presented as `kind` is refused, as one line: its ending (and the kind it
   * really was, when another was presented), or unknown.
   */
  reason(token: string, kind: TokenKind): string {
    const slot = this.slotOf.get(token);
    if (slot === undefined)
      return `unknown ${kind} token (never issued by this mock, or ended before its last restart or reset, or more than ${this.capacity} token endings ago)`;
    const was = this.kinds[slot]!;
    const wrongKind = was === kind ? '' : `${was} token sent as the ${kind} token: `;
    return `${wrongKind}${was} token ${this.whys[slot]!} at ${new Date(this.ats[slot]!).toISOString()}`;
  }

  /** The user and client of an ended token still remembered (SPEC §8: the log line names them). */
  owner(token: string): { user?: string; client?: string } {
    const slot = this.slotOf.get(token);
    if (slot === undefined) return {};
    const user = this.users[slot];
    const client = this.clients[slot];
    return {
      ...(user === undefined ? {} : { user }),
      ...(client === undefined ? {} : { client }),
    };
  }

  clear(): void {
    this.slotOf.clear();
    for (const column of [this.tokens, this.kinds, this.whys, this.users, this.clients])
      column.fill(undefined);
    this.head = 0;
  }
}
