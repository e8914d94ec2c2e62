import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';

/** Splits a command line the way a shell would for simple quoting ('…', "…", backslash). */
export function splitCommand(command: string): string[] {
  const out: string[] = [];
  let current = '';
  let quote: '"' | "'" | undefined;
  let started = false;
  for (let i = 0; i < command.length; i++) {
    const c = command[i]!;
    if (quote) {
      if (c === quote) quote = undefined;
      else if (c === '\\' && quote === '"' && i + 1 < command.length) current += command[++i];
      else current += c;
    } else if (c === '"' || c === "'") {
      quote = c;
      started = true;
    } else if (c === '\\' && i + 1 < command.length) {
      current += command[++i];
      started = true;
    } else if (/\s/.test(c)) {
      if (started) out.push(current);
      current = '';
      started = false;
    } else {
      current += c;
      started = true;
    }
  }
  if (started) out.push(current);
  return out;
}

/**
 * The argv to run for `DASVC_BROWSER`/`BROWSER` (SPEC §2): the URL as the one extra argument, or in
 * place of `%s` when the command has one. A value naming an existing file is run as is, spaces and all.
 */
export function browserArgv(command: string, url: string): string[] {
  const words = existsSync(command) ? [command] : splitCommand(command);
  if (words.some((w) => w.includes('%s'))) return words.map((w) => w.split('%s').join(url));
  return [...words, url];
}

/** Opens the URL: `DASVC_BROWSER`, then `BROWSER`, else the `open` package (loaded only here). */
export async function openBrowser(url: string, env: NodeJS.ProcessEnv): Promise<void> {
  const command = env.DASVC_BROWSER || env.BROWSER;
  if (command) {
    const [file, ...args] = browserArgv(command, url);
    if (!file) throw new Error('the browser command is empty');
    await new Promise<void>((resolve, reject) => {
      const child = spawn(file, args, { detached: true, stdio: 'ignore', env });
      child.once('error', reject);
      child.once('spawn', () => {
        child.unref();
        resolve();
      });
    });
    return;
  }
  const { default: open } = await import('open');
  const child = await open(url);
  child.once('error', () => undefined);
  child.unref();
}
