import type * as NodeCrypto from 'node:crypto';

let loadedCrypto: typeof NodeCrypto | undefined;

/** node:crypto on first use: `dasvc mock` listens without loading its internal modules. */
export function nodeCrypto(): typeof NodeCrypto {
  return (loadedCrypto ??= process.getBuiltinModule('node:crypto'));
}
