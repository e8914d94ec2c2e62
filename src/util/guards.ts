// The one small kit for checking the shape of parsed JSON by hand (the mock's state file): each
// check takes a value and says whether it fits.

/** A plain JSON object: not null, not an array. */
export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Whether one value fits. */
export type Check = (value: unknown) => boolean;

export const isString: Check = (value) => typeof value === 'string';
/** A number JSON can hold: finite. */
export const isNumber: Check = (value) => typeof value === 'number' && Number.isFinite(value);
export const isBoolean: Check = (value) => typeof value === 'boolean';
export const isStrings: Check = (value) => Array.isArray(value) && value.every(isString);

/** `check`, or the value left out. */
export const optional =
  (check: Check): Check =>
  (value) =>
    value === undefined || check(value);

/** An object with exactly these fields, each checked (one it does not name is refused). */
export function exactObject(fields: Record<string, Check>): Check {
  return (value) =>
    isObject(value) &&
    Object.keys(value).every((key) => Object.hasOwn(fields, key)) &&
    Object.entries(fields).every(([key, check]) => check(value[key]));
}
