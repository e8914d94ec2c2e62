import { isObject } from '../util/guards.js';
import { unescapeSegment } from '../util/json-pointer.js';

/** A method as `rpc.discover` declares it: its name and the names of its params, in order. */
export interface DiscoveredMethod {
  name: string;
  params: string[];
  /** `paramStructure: "by-position"`: params go as an array, so they are not given by name. */
  byPosition: boolean;
}

/**
 * The method names of an OpenRPC document, the result of `rpc.discover` (OpenRPC 1.2.6 §3.1 service
 * discovery). Anything that is not such a document gives none: the service may not implement it.
 */
export function methodNamesOf(document: unknown): string[] {
  return methodsOf(document).map((method) => method.name);
}

/**
 * The methods of an OpenRPC document with their param names (OpenRPC 1.2.6 §4.8 Method, §4.9
 * Content Descriptor); a param given as a `$ref` to `#/components/contentDescriptors/…` is looked
 * up there. Methods given as a reference, and params that name nothing, are left out.
 */
export function methodsOf(document: unknown): DiscoveredMethod[] {
  if (!isObject(document) || !Array.isArray(document.methods)) return [];
  const components = isObject(document.components) ? document.components : {};
  const descriptors = isObject(components.contentDescriptors) ? components.contentDescriptors : {};
  const nameOf = (param: unknown): string | undefined => {
    if (!isObject(param)) return undefined;
    const ref = param.$ref;
    const prefix = '#/components/contentDescriptors/';
    const target =
      typeof ref === 'string' && ref.startsWith(prefix)
        ? descriptors[unescapeSegment(ref.slice(prefix.length))]
        : param;
    return isObject(target) && typeof target.name === 'string' && target.name !== ''
      ? target.name
      : undefined;
  };
  const methods: DiscoveredMethod[] = [];
  for (const method of document.methods) {
    if (!isObject(method) || typeof method.name !== 'string' || method.name === '') continue;
    const params = Array.isArray(method.params) ? method.params : [];
    methods.push({
      name: method.name,
      params: params.map(nameOf).filter((name) => name !== undefined),
      byPosition: method.paramStructure === 'by-position',
    });
  }
  return methods;
}
