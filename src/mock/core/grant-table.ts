/** Grant ids per block: a block's map rehashes at most a quarter of this when it shrinks. */
const BLOCK = 16_384;

/**
 * Grant id → grant, in maps of consecutive id blocks: a Map that shrinks after
 * deletions rehashes what is left in one go, inside one `delete`, so one map of a million grants would block the event loop during a purge however finely it is
 * sliced; a block holds 16 384 ids at most, and an emptied block is dropped. Ids are handed out in
 * increasing order, so iterating the blocks in order iterates in insertion order, as a Map does.
 */
export class GrantTable<V> {
  private readonly blocks = new Map<number, Map<number, V>>();
  private count = 0;

  get(id: number): V | undefined {
    return this.blocks.get(Math.floor(id / BLOCK))?.get(id);
  }

  has(id: number): boolean {
    return this.blocks.get(Math.floor(id / BLOCK))?.has(id) ?? false;
  }

  set(id: number, value: V): this {
    const key = Math.floor(id / BLOCK);
    let block = this.blocks.get(key);
    if (block === undefined) {
      block = new Map();
      this.blocks.set(key, block);
    }
    const before = block.size;
    block.set(id, value);
    this.count += block.size - before;
    return this;
  }

  delete(id: number): boolean {
    const key = Math.floor(id / BLOCK);
    const block = this.blocks.get(key);
    if (block === undefined || !block.delete(id)) return false;
    this.count -= 1;
    if (block.size === 0) this.blocks.delete(key);
    return true;
  }

  clear(): void {
    this.blocks.clear();
    this.count = 0;
  }

  get size(): number {
    return this.count;
  }

  /** Entries in increasing id order (the blocks in order, each in insertion order). */
  *[Symbol.iterator](): IterableIterator<[number, V]> {
    for (const key of [...this.blocks.keys()].sort((a, b) => a - b)) {
      yield* this.blocks.get(key) ?? [];
    }
  }

  *keys(): IterableIterator<number> {
    for (const [id] of this) yield id;
  }

  /**
   * Entries for a walk that deletes as it goes and may pause between steps (the purge): each
   * block's own live iterator, so nothing is copied; blocks added meanwhile may be skipped.
   */
  *live(): IterableIterator<[number, V]> {
    for (const key of [...this.blocks.keys()]) {
      const block = this.blocks.get(key);
      if (block !== undefined) yield* block;
    }
  }
}
