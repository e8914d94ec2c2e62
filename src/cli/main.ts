import { readFileSync } from 'node:fs';
import { DasvcError, ExitCode } from '../errors.js';

/**
 * Runs the CLI and returns its exit code. The only place where an error becomes an exit code and
 * a message (SPEC §4); commands throw, they never exit.
 */
export async function run(argv: string[]): Promise<number> {
  // `dasvc --version` answers before commander and the commands load (start-up target: ≤ 1.3× node -e 0).
  if (argv.length === 3 && argv[2] === '--version') {
    const pkg = JSON.parse(
      readFileSync(new URL('../../package.json', import.meta.url), 'utf8'),
    ) as { version: string };
    process.stdout.write(`${pkg.version}\n`);
    return ExitCode.ok;
  }
  const { buildProgram } = await import('./program.js');
  const program = buildProgram();
  // Subcommands inherit exitOverride so that their usage errors reach report() too.
  const inherit = (command: typeof program) => {
    for (const sub of command.commands) {
      sub.exitOverride();
      inherit(sub);
    }
  };
  inherit(program);
  try {
    await program.parseAsync(argv);
    return typeof process.exitCode === 'number' ? process.exitCode : ExitCode.ok;
  } catch (error) {
    return report(error, argv.includes('--json'));
  }
}

function isCommanderError(error: unknown): error is { code: string } {
  // Duck-typed so that main.ts does not have to load commander for `--version`.
  const code = (error as { code?: unknown } | null)?.code;
  return (
    error instanceof Error &&
    !(error instanceof DasvcError) &&
    typeof code === 'string' &&
    code.startsWith('commander.')
  );
}

function report(error: unknown, json: boolean): number {
  if (isCommanderError(error)) {
    // commander already printed its message; help and version are successes.
    if (error.code === 'commander.helpDisplayed' || error.code === 'commander.version') return 0;
    if (error.code === 'commander.help') return 0;
    return ExitCode.usage;
  }
  if (error instanceof DasvcError) {
    if (json) {
      // --json: the error as one JSON line on stderr, so stdout carries results only.
      const body = {
        error: {
          exitCode: error.exitCode,
          code: error.code ?? null,
          message: error.message,
          hint: error.hint ?? null,
          status: error.status ?? null,
          detail: error.detail ?? null,
        },
      };
      process.stderr.write(`${JSON.stringify(body)}\n`);
      return error.exitCode;
    }
    // A JSON-RPC error is printed exactly as SPEC §3 writes it: `error <code>: <message>` (and data).
    if (error.code === 'jsonrpc_error') {
      process.stderr.write(`${error.message}\n`);
      if (error.detail !== undefined)
        process.stderr.write(`data: ${JSON.stringify(error.detail)}\n`);
      return error.exitCode;
    }
    process.stderr.write(`dasvc: ${error.message}\n`);
    if (error.hint) process.stderr.write(`hint: ${error.hint}\n`);
    return error.exitCode;
  }
  const stack = error instanceof Error ? (error.stack ?? error.message) : String(error);
  process.stderr.write(`dasvc: unexpected error (a bug; please report it)\n${stack}\n`);
  return ExitCode.service;
}
