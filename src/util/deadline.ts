/**
 * Calls `expire` once `ms` have passed and the answers that arrived meanwhile have been read: the
 * event loop runs timers before I/O, so a process starved of CPU would otherwise find its timer due
 * before the answer that was already waiting for it, and blame a store that did answer in time.
 * Returns what cancels it.
 */
export function atDeadline(ms: number, expire: () => void): () => void {
  let immediate: NodeJS.Immediate | undefined;
  const timer = setTimeout(() => (immediate = setImmediate(expire)), Math.max(0, ms));
  return () => {
    clearTimeout(timer);
    if (immediate) clearImmediate(immediate);
  };
}
