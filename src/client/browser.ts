import { spawn, type ChildProcess } from 'node:child_process';
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

/**
 * Why no browser can be opened here, or undefined: a Linux desktop browser needs a display (X11 or
 * Wayland); WSL opens the Windows one. macOS and Windows always have theirs.
 */
export function noDisplay(env: NodeJS.ProcessEnv, platform = process.platform): string | undefined {
  if (platform !== 'linux' || env.DISPLAY || env.WAYLAND_DISPLAY || env.WSL_DISTRO_NAME)
    return undefined;
  return 'no display: neither DISPLAY nor WAYLAND_DISPLAY is set';
}

/**
 * Settles with the browser command: fulfilled when it exits with 0, rejected when it cannot start
 * or exits otherwise. A browser that stays in the foreground keeps it pending, which is no
 * failure. The command never keeps dasvc running.
 */
function outcomeOf(child: ChildProcess, name: string): Promise<void> {
  child.unref();
  return new Promise<void>((resolve, reject) => {
    child.once('error', (error: NodeJS.ErrnoException) =>
      reject(new Error(`cannot run ${name} (${error.code ?? error.message})`)),
    );
    child.once('exit', (code, signal) => {
      if (code === 0) resolve();
      else
        reject(
          new Error(`${name} ${code === null ? `was ended by ${signal}` : `exited with ${code}`}`),
        );
    });
  });
}

/**
 * Opens the URL: `DASVC_BROWSER`, then `BROWSER`, else the `open` package (loaded only here).
 * Rejects when there is no browser to open: no display on Linux, or the command failing.
 */
export async function openBrowser(
  url: string,
  env: NodeJS.ProcessEnv,
  platform = process.platform,
): Promise<void> {
  const command = env.DASVC_BROWSER || env.BROWSER;
  if (command) {
    const [file, ...args] = browserArgv(command, url);
    if (!file) throw new Error('the browser command is empty');
    const name = env.DASVC_BROWSER ? 'DASVC_BROWSER' : 'BROWSER';
    return outcomeOf(
      spawn(file, args, { detached: true, stdio: 'ignore', env }),
      `the ${name} command ${file}`,
    );
  }
  const missing = noDisplay(env, platform);
  if (missing) throw new Error(missing);
  const { default: open } = await import('open');
  return outcomeOf(await open(url), 'the system browser opener');
}
