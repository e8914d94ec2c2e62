// TypeScript 5.9's compiler API for the tests that read declarations with it. Loaded with
// require(): it is one CommonJS file of several megabytes, which an ES import would have Node scan
// for its export names first (about three times the CPU of loading it).
import { createRequire } from 'node:module';
import type * as TypeScript from 'typescript';

export const ts = createRequire(import.meta.url)('typescript') as typeof TypeScript;
export type { TypeScript };
