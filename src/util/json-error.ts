/**
 * What JSON.parse said, without V8's quote of the text (`Unexpected token 'V', "{"token":Vhrjc"...
 * is not valid JSON` → `Unexpected token 'V'`; a quote from the middle of a long text starts with
 * `..."`): the text may be a config file, a state file or a request body, and hold tokens (SPEC
 * §3: never printed, never logged), and the quote keeps its line breaks.
 */
export function jsonSyntaxProblem(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.replace(/, (\.\.\.)?"[\s\S]*"(\.\.\.)? is not valid JSON$/, '');
}
