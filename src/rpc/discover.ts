import { isObject } from '../util/guards.js';

/**
 * The method names of an OpenRPC document, the result of `rpc.discover` (OpenRPC 1.2.6 §3.1 service
 * discovery). Anything that is not such a document gives none: the service may not implement it.
 */
export function methodNamesOf(document: unknown): string[] {
  if (!isObject(document) || !Array.isArray(document.methods)) return [];
  const names: string[] = [];
  for (const method of document.methods) {
    if (isObject(method) && typeof method.name === 'string' && method.name !== '')
      names.push(method.name);
  }
  return names;
}
