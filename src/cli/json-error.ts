import { snakeCode, type JsonRpcErrorObject } from '../errors.js';
import { safeJson } from '../util/printable.js';

/** Every error under `--json`: one shape for every command, `code` always a snake_case string. */
export interface JsonErrorFields {
  code: string;
  exitCode: number;
  message: string;
  hint?: string | undefined;
  /** The JSON-RPC error object a failed call answered with. */
  rpc?: JsonRpcErrorObject | undefined;
}

/**
 * The `--json` error document: the error alone, one line, or as the `error` member of the
 * command's answer (`answer`), laid out as that answer is (`indent`: pretty on a terminal).
 * `data` nested deeper than JSON.stringify goes is shown as the reason it cannot be, so the
 * document is always written.
 */
export function jsonErrorDocument(
  fields: JsonErrorFields,
  answer?: object,
  indent?: number,
): string {
  const error = {
    code: snakeCode(fields.code) || 'error',
    exitCode: fields.exitCode,
    message: fields.message,
    ...(fields.hint ? { hint: fields.hint } : {}),
    ...(fields.rpc ? { rpc: fields.rpc } : {}),
  };
  const text = (member: object) =>
    safeJson(
      JSON.stringify({ ...answer, error: member }, null, answer === undefined ? undefined : indent),
    );
  try {
    return text(error);
  } catch (problem) {
    const data = `(cannot be shown: ${(problem as Error).message})`;
    return text({ ...error, rpc: fields.rpc && { ...fields.rpc, data } });
  }
}
