/** Longest stretch a sweep holds the event loop; the rest follows in later turns. */
const SLICE_MS = 5;

/**
 * A sweep of expired entries that never stalls a request: it starts at most every `everyMs` of
 * virtual time and runs in slices of a few milliseconds, one event-loop turn each. The steps
 * come from `steps()`, a generator that yields between groups of entries; lookups check expiry
 * themselves, so a sweep left half done is safe.
 */
export class SlicedSweep {
  private last = 0;
  /** The sweep under way, continued slice by slice; undefined when none is. */
  private sweeper: Generator<void, void, void> | undefined;

  constructor(
    private readonly steps: () => Generator<void, void, void>,
    private readonly now: () => number,
    private readonly everyMs: number,
  ) {}

  /** Whether a sweep is still under way. */
  get running(): boolean {
    return this.sweeper !== undefined;
  }

  /** Drops the sweep under way (the entries it walks are gone). */
  cancel(): void {
    this.sweeper = undefined;
  }

  /** Sweeps everything at once. */
  runAll(): void {
    this.last = this.now();
    this.sweeper = undefined;
    const steps = this.steps();
    while (!steps.next().done);
  }

  /** Starts a sweep when the last began `everyMs` ago or more; it runs in slices. */
  maybeStart(): void {
    if (this.sweeper !== undefined || this.now() - this.last < this.everyMs) return;
    this.last = this.now();
    this.sweeper = this.steps();
    this.continue();
  }

  /** Runs the sweep under way for one slice, then yields the event loop until the next turn. */
  private readonly continue = (): void => {
    const sweeper = this.sweeper;
    if (sweeper === undefined) return;
    const deadline = performance.now() + SLICE_MS;
    do {
      if (sweeper.next().done) {
        if (this.sweeper === sweeper) this.sweeper = undefined;
        return;
      }
    } while (performance.now() < deadline);
    // Unref'd: a sweep never keeps a process (or a test) alive.
    setImmediate(this.continue).unref();
  };
}
