import { spawn } from 'node:child_process';
import { tracked } from './children.js';

/** util-linux `script`: gives a command a real pseudo-terminal (on every Debian system). */
export const SCRIPT = '/usr/bin/script';

/** A command running on a pseudo-terminal, driven as a person would: keys in, screen out. */
export interface Terminal {
  /** Sends keys (`\r` is Enter, `\t` TAB, `\x03` Ctrl-C, `\x15` Ctrl-U). */
  type(keys: string): void;
  /** Resolves with what was printed since the last wait, once every text has appeared there. */
  waitFor(texts: string[]): Promise<string>;
  /** The exit code (script -e passes the command's on) and everything printed. */
  readonly exited: Promise<{ code: number | null; screen: string }>;
  /** Everything printed since the last wait. */
  fresh(): string;
}

/**
 * Runs `command` (one shell word each) on a pseudo-terminal. No timer ends it (a loaded machine
 * made one a flake): a hang is the test's timeout, and the file's end kills what is left.
 */
export function onTerminal(command: string[], env: Record<string, string>): Terminal {
  const quoted = command.map((word) => `'${word.replace(/'/g, `'\\''`)}'`).join(' ');
  const child = tracked(
    spawn(SCRIPT, ['-qec', quoted, '/dev/null'], {
      env: { TERM: 'xterm', ...env },
      stdio: ['pipe', 'pipe', 'pipe'],
    }),
  );
  let screen = '';
  let seen = 0;
  let check: (() => void) | undefined;
  child.stdout.on('data', (chunk: Buffer) => {
    screen += chunk.toString();
    check?.();
  });
  child.stdin.on('error', () => undefined);
  const exited = new Promise<{ code: number | null; screen: string }>((resolve) => {
    child.on('close', (code) => {
      check?.();
      resolve({ code, screen });
    });
  });
  return {
    type: (keys) => void child.stdin.write(keys),
    waitFor: (texts) =>
      new Promise<string>((resolve, reject) => {
        check = () => {
          const fresh = screen.slice(seen);
          if (texts.every((t) => fresh.includes(t))) {
            check = undefined;
            seen = screen.length;
            resolve(fresh);
          } else if (child.exitCode !== null || child.signalCode !== null) {
            check = undefined;
            reject(new Error(`ended while waiting for ${texts.join(', ')} in:\n${fresh}`));
          }
        };
        check();
      }),
    exited,
    fresh: () => screen.slice(seen),
  };
}
