import { createRequire } from 'node:module';
import type * as commander from 'commander';

/**
 * commander's Command class, loaded with require(): commander is CommonJS, and importing it as an
 * ES module adds its ESM wrapper and a parse of its exports to every start-up (~2–3 ms).
 */
export const Command: typeof commander.Command = (
  createRequire(import.meta.url)('commander') as typeof commander
).Command;
export type Command = commander.Command;
