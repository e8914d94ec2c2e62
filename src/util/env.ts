/**
 * Environment variables as dasvc reads them: `process.env`, or any record like it (a test's, a
 * library user's). Not NodeJS.ProcessEnv in the public declarations: a consumer type-checks them
 * without @types/node (SPEC §1: types under `moduleResolution: node16`).
 */
export type Env = Readonly<Record<string, string | undefined>>;
