/**
 * Token → grant id, kept in 64 maps chosen by the token's first character (tokens are random
 * base64url, so the shards fill evenly). A Map that shrinks after deletions rehashes what is left
 * in one go, inside one `delete`, so a purge of a million pairs in one map would block the event loop however finely it is sliced; a shard holds a 64th of it.
 */
export class TokenIndex {
  private readonly shards: Map<string, number>[] = Array.from({ length: 64 }, () => new Map());

  private shard(token: string): Map<string, number> {
    // '' gives NaN, and NaN & 63 is 0.
    return this.shards[token.charCodeAt(0) & 63]!;
  }

  get(token: string): number | undefined {
    return this.shard(token).get(token);
  }

  set(token: string, grantId: number): void {
    this.shard(token).set(token, grantId);
  }

  delete(token: string): boolean {
    return this.shard(token).delete(token);
  }

  clear(): void {
    for (const shard of this.shards) shard.clear();
  }

  get size(): number {
    let size = 0;
    for (const shard of this.shards) size += shard.size;
    return size;
  }
}
