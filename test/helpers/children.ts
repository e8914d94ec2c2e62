// Child processes the file's tests started: none outlives its file. A test that hangs is ended by
// its own timeout, not by a timer on the child (a loaded machine makes any such timer a flake);
// what it left running is killed here after the file (test/helpers/per-file.ts).
import type { ChildProcess } from 'node:child_process';

const running = new Set<ChildProcess>();

/** Keeps `child` until it exits, so that the file's end can kill it if it is still running. */
export function tracked<T extends ChildProcess>(child: T): T {
  running.add(child);
  child.on('exit', () => running.delete(child));
  return child;
}

/** SIGKILLs every tracked child still running. */
export function killChildren(): void {
  for (const child of running) child.kill('SIGKILL');
  running.clear();
}
