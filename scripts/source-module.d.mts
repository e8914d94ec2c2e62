/** `source` (a path under src/) bundled into a new file of `.tmp/`; the caller removes it. */
export function sourceModule(source: string): Promise<string>;
