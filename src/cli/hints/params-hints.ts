import { shellWord } from '../shell-word.js';
import { textOf, type HintRule } from './facts.js';

/**
 * `dasvc rpc`'s params items (src/rpc/params.ts): a `key:=` item whose text is no JSON was most
 * likely meant as a string, the mirror of `key=1` sent as a string (method-hint.ts). The text is
 * not repeated: it may be a secret, and under --json the hint goes to stdout.
 */
export const paramsHint: HintRule = (code, facts) => {
  const key = textOf(facts.typedParam);
  if (code !== 'bad_params' || key === undefined) return undefined;
  return `${shellWord(`${key}=`)}… sends text as a string; ${shellWord(`${key}:=`)}… takes JSON only`;
};
