// The documentation's code blocks, read as the reader sees them and run as the reader would: a
// shell line by line in bash, with `dasvc` on PATH meaning the built CLI of this repository.
import { execFile } from 'node:child_process';
import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BIN, ROOT } from './cli.js';
import { scratchDir } from './scratch.js';

export interface CodeBlock {
  /** The fence's info string: `sh`, `sh recipe`, `js`. */
  info: string;
  code: string;
}

/** The fenced code blocks of a Markdown file (path from the repository root), in order. */
export function codeBlocks(file: string, under?: string): CodeBlock[] {
  let text = readFileSync(join(ROOT, file), 'utf8');
  if (under !== undefined) {
    const start = text.indexOf(`\n${under}\n`);
    if (start < 0) throw new Error(`no heading ${under} in ${file}`);
    const rest = text.slice(start + under.length + 2);
    const end = rest.search(new RegExp(`^#{1,${under.indexOf(' ')}} `, 'm'));
    text = end < 0 ? rest : rest.slice(0, end);
  }
  return [...text.matchAll(/^```([^\n]*)\n([\s\S]*?)^```$/gm)].map((m) => ({
    info: m[1]!.trim(),
    code: m[2]!,
  }));
}

/** A shell block's commands: continuation lines joined, blank and comment-only lines left out. */
export function shellCommands(code: string): string[] {
  return code
    .replace(/\\\n/g, ' ')
    .split('\n')
    .filter((line) => line.trim() !== '' && !line.trim().startsWith('#'));
}

/** The exit code a command's own comment promises (`# … exit 1 …`), else 0. */
export function promisedExit(command: string): number {
  const comment = command.slice(command.indexOf(' #') + 1);
  const match = command.includes(' #') ? /\bexit (\d+)/.exec(comment) : null;
  return match ? Number(match[1]) : 0;
}

/**
 * A clean environment in which `dasvc` is the built CLI: a folder on PATH holding a `dasvc`
 * script, a config folder and HOME of its own, CI set (no prompts), no colour, and no D-Bus
 * session (the tokens go to the config file, not the developer's keyring).
 */
export function dasvcShellEnv(extra: Record<string, string> = {}): Record<string, string> {
  const dir = scratchDir('dasvc-recipe-');
  const shim = join(dir, 'dasvc');
  writeFileSync(shim, `#!/bin/sh\nexec "${process.execPath}" "${BIN}" "$@"\n`);
  chmodSync(shim, 0o755);
  return {
    PATH: `${dir}:${process.env.PATH ?? ''}`,
    HOME: dir,
    DASVC_CONFIG_DIR: dir,
    CI: '1',
    NO_COLOR: '1',
    ...extra,
  };
}

/** Runs one command line in bash; its exit code and output. */
export function bash(
  command: string,
  options: { cwd: string; env: Record<string, string> },
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile('bash', ['-c', command], options, (error, stdout, stderr) =>
      resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    );
  });
}
