import type { InstanceFixture, MethodFixture } from './fixtures.js';

function describe(method: MethodFixture): Record<string, unknown> {
  return {
    name: method.name,
    ...(method.summary === undefined ? {} : { summary: method.summary }),
    ...(method.description === undefined ? {} : { description: method.description }),
    params: method.params,
    result: method.result ?? { name: 'result', schema: {} },
    paramStructure: 'either',
  };
}

/** `rpc.discover` (OpenRPC 1.2 service discovery): the instance's methods, itself included. */
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
      },
    ],
  };
}
