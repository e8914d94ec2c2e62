/**
 * Pasted lines for several login flows in a row (`dasvc check --no-browser`): each flow reads from
 * its own session, and a new session ends the previous one, so a reader left waiting by a flow the
 * loopback completed never swallows the line meant for the next flow.
 */
export function pasteSessions(lines: AsyncIterable<string>): () => AsyncIterable<string> {
  let session = 0;
  let waiting: ((result: IteratorResult<string>) => void) | undefined;
  const buffered: string[] = [];
  let ended = false;
  void (async () => {
    try {
      for await (const line of lines) {
        if (waiting) {
          const deliver = waiting;
          waiting = undefined;
          deliver({ value: line, done: false });
        } else buffered.push(line);
      }
    } catch {
      // stdin closed or unreadable: the loopback may still complete each flow.
    }
    ended = true;
    waiting?.({ value: undefined, done: true });
  })();
  return () => {
    session += 1;
    const mine = session;
    buffered.length = 0;
    waiting?.({ value: undefined, done: true });
    waiting = undefined;
    return {
      [Symbol.asyncIterator]: () => ({
        next: (): Promise<IteratorResult<string>> => {
          if (mine !== session || ended) return Promise.resolve({ value: undefined, done: true });
          const line = buffered.shift();
          if (line !== undefined) return Promise.resolve({ value: line, done: false });
          return new Promise((resolve) => (waiting = resolve));
        },
        return: () => Promise.resolve({ value: undefined, done: true }),
      }),
    };
  };
}
