/**
 * The instance IDs a scope names (SERVICE.md 2.5: separated by spaces), each once, and the first
 * one the fixtures do not know: the one parse of a scope for every route (authorize, /_mock/tokens).
 */
export function scopeList(
  scope: string,
  instances: { has(id: string): boolean },
): { scopes: string[]; unknown: string | undefined } {
  const scopes = [...new Set(scope.split(' ').filter((s) => s !== ''))];
  return { scopes, unknown: scopes.find((s) => !instances.has(s)) };
}
