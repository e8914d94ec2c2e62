// `dasvc mock` runs a file's tests started in this process (startMockInProcess): none outlives its
// file. Apart from mock-process.ts so that the setup file that stops them loads no CLI.

/** What stops one run; resolves once it has closed. */
type Stop = () => Promise<unknown>;

const running = new Set<Stop>();

/** Keeps `stop` until `done` settles, so that the file's end can stop the run if it still runs. */
export function trackedRun(stop: Stop, done: Promise<unknown>): void {
  running.add(stop);
  void done.finally(() => running.delete(stop));
}

/** Stops every tracked run still going, and waits for each to close. */
export async function stopRuns(): Promise<void> {
  await Promise.all([...running].map((stop) => stop()));
  running.clear();
}
