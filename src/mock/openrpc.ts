import type { ContentDescriptor, InstanceFixture, MethodFixture } from './fixtures.js';

/** The fields of an OpenRPC 1.2.6 content descriptor (the meta-schema allows no others). */
const DESCRIPTOR_KEYS = ['name', 'summary', 'description', 'required', 'deprecated'] as const;

/** A content descriptor with only its allowed fields; `schema` is required, `{}` when undeclared. */
function contentDescriptor(descriptor: ContentDescriptor): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of DESCRIPTOR_KEYS) {
    if (descriptor[key] !== undefined) out[key] = descriptor[key];
  }
  out.schema = descriptor.schema ?? {};
  return out;
}

function describe(method: MethodFixture): Record<string, unknown> {
  return {
    name: method.name,
    ...(method.summary === undefined ? {} : { summary: method.summary }),
    ...(method.description === undefined ? {} : { description: method.description }),
    params: method.params.map(contentDescriptor),
    result: contentDescriptor(method.result ?? { name: 'result' }),
    paramStructure: 'either',
  };
}

/** `rpc.discover` (OpenRPC 1.2.6 service discovery): the instance's methods, itself included. */
export function buildOpenRpcDocument(instance: InstanceFixture, serverUrl: string): unknown {
  return {
    openrpc: '1.2.6',
    info: {
      title: instance.title,
      version: '1.0.0',
      ...(instance.description === undefined ? {} : { description: instance.description }),
    },
    servers: [{ name: instance.name, url: serverUrl }],
    methods: [
      ...[...instance.methods.values()].map(describe),
      {
        name: 'rpc.discover',
        summary: 'Returns the OpenRPC document of this instance',
        params: [],
        result: { name: 'OpenRPC document', schema: { $ref: 'https://meta.open-rpc.org/' } },
        paramStructure: 'either',
      },
    ],
  };
}
