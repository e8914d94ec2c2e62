import { createHttpClient } from '../../../http/http-client.js';
import type { Writer } from '../../output.js';
import { shapeHelp } from '../../help-text.js';
import { buildProgram } from '../../program.js';
import { completeWords } from './complete-words.js';
import { storeSources } from './completion-sources.js';

/** SPEC §3: completion gives up silently within 1 s; counted from the process start. */
export const COMPLETION_BUDGET_MS = 900;

/** One line per candidate, tab, description: what the shell scripts of run.ts read. */
function lineOf(value: string, description: string | undefined): string {
  const clean = (text: string) => text.replace(/[\t\r\n]+/g, ' ');
  return description ? `${clean(value)}\t${clean(description)}` : clean(value);
}

/**
 * `dasvc __complete -- <words…>` (hidden; called by the completion scripts): prints the
 * completions of the last word. Never prompts, never fails: an error prints nothing.
 */
export async function completeLine(
  words: string[],
  io: { env: NodeJS.ProcessEnv; stdout: Writer },
): Promise<void> {
  try {
    const root = await buildProgram(['node', 'dasvc']);
    shapeHelp(root);
    const timeoutMs = Math.max(50, Math.floor(COMPLETION_BUDGET_MS - 100 - performance.now()));
    const send = createHttpClient({ env: io.env, timeoutMs, shortLived: true });
    const candidates = await completeWords(
      root,
      words,
      storeSources({ env: io.env, now: Date.now, send, keychainTimeoutMs: timeoutMs }),
    );
    if (candidates.length > 0)
      io.stdout.write(`${candidates.map((c) => lineOf(c.value, c.description)).join('\n')}\n`);
  } catch {
    // Completion says nothing rather than an error in the middle of the user's command line.
  }
}
