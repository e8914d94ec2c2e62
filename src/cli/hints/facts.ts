/** An error's facts (its `facts`, never the service's words): what a hint is made from. */
export type Facts = Readonly<Record<string, unknown>>;

/** The failure behind an error (its `cause`), when that is one of dasvc's: its code and hint. */
export interface CauseOf {
  code: string | undefined;
  hint: () => string | undefined;
}

/** The hints of one area, from an error's code and facts; undefined when it has none for them. */
export type HintRule = (code: string, facts: Facts, cause?: CauseOf) => string | undefined;

/** A fact that is a string, or undefined. */
export function textOf(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

/** The strings of a fact that is a list (none when it is not one). */
export function namesOf(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((item) => typeof item === 'string') : [];
}
