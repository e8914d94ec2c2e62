import { statSync } from 'node:fs';
import { join } from 'node:path';

// What the probe of the Secret Service (session-bus-probe.ts) needs of D-Bus: where the session
// bus is, and method calls and their replies on the wire (D-Bus specification, "Message Format").

/** One address of a D-Bus address list: a unix socket (an abstract one starts with NUL), or not. */
export type BusAddress = { transport: 'unix'; path: string } | { transport: string };

/**
 * Where libdbus connects for the session bus: DBUS_SESSION_BUS_ADDRESS, else `$XDG_RUNTIME_DIR/bus`
 * when it is a socket of this user (D-Bus specification, "Well-known Message Bus Instances").
 */
export function sessionBusAddress(env: NodeJS.ProcessEnv): string | undefined {
  if (env.DBUS_SESSION_BUS_ADDRESS) return env.DBUS_SESSION_BUS_ADDRESS;
  if (!env.XDG_RUNTIME_DIR) return undefined;
  const path = join(env.XDG_RUNTIME_DIR, 'bus');
  try {
    const found = statSync(path);
    if (found.isSocket() && found.uid === process.getuid?.()) return `unix:path=${path}`;
  } catch {
    // no bus there
  }
  return undefined;
}

/** The addresses of an address list, in the order libdbus tries them (D-Bus spec, "Addresses"). */
export function parseBusAddresses(list: string): BusAddress[] {
  const addresses: BusAddress[] = [];
  for (const address of list.split(';')) {
    const colon = address.indexOf(':');
    if (colon < 0) continue;
    const transport = address.slice(0, colon);
    const keys = new Map<string, string>();
    for (const pair of address.slice(colon + 1).split(',')) {
      const eq = pair.indexOf('=');
      if (eq > 0) keys.set(pair.slice(0, eq), unescapeValue(pair.slice(eq + 1)));
    }
    const path = keys.get('path');
    const abstract = keys.get('abstract');
    if (transport === 'unix' && (path !== undefined || abstract !== undefined))
      addresses.push({ transport, path: path ?? `\0${abstract!}` });
    else addresses.push({ transport });
  }
  return addresses;
}

function unescapeValue(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

/** The D-Bus message types of a reply. */
export const METHOD_RETURN = 2;
export const ERROR = 3;

/** A message as the probe needs it: its type, the call it answers, the error name, the body. */
export interface Message {
  type: number;
  replySerial: number | undefined;
  errorName: string | undefined;
  body: Buffer;
  little: boolean;
}

const align = (n: number, to: number) => Math.ceil(n / to) * to;

/** Encodes a method call (D-Bus spec, "Message Format"), little-endian, with string arguments. */
export function methodCall(
  serial: number,
  call: { path: string; iface: string; member: string; destination: string; args?: string[] },
): Buffer {
  const bytes: number[] = [];
  const pad = (to: number) => {
    while (bytes.length % to !== 0) bytes.push(0);
  };
  const u32 = (value: number) => {
    pad(4);
    bytes.push(value & 0xff, (value >>> 8) & 0xff, (value >>> 16) & 0xff, value >>> 24);
  };
  const string = (value: string) => {
    const encoded = Buffer.from(value, 'utf8');
    u32(encoded.length);
    bytes.push(...encoded, 0);
  };
  const signature = (value: string) => bytes.push(value.length, ...Buffer.from(value), 0);
  const args = call.args ?? [];
  const body: number[] = [];
  for (const arg of args) {
    while (body.length % 4 !== 0) body.push(0);
    const encoded = Buffer.from(arg, 'utf8');
    const length = encoded.length;
    body.push(length & 0xff, (length >>> 8) & 0xff, (length >>> 16) & 0xff, length >>> 24);
    body.push(...encoded, 0);
  }
  bytes.push(0x6c, 1, 0, 1); // little-endian, METHOD_CALL, no flags, protocol version 1
  u32(body.length);
  u32(serial);
  u32(0); // the header fields' length, set below
  const fieldsStart = bytes.length;
  const fields: [number, string, string][] = [
    [1, 'o', call.path],
    [2, 's', call.iface],
    [3, 's', call.member],
    [6, 's', call.destination],
  ];
  if (args.length > 0) fields.push([8, 'g', 's'.repeat(args.length)]);
  for (const [code, type, value] of fields) {
    pad(8);
    bytes.push(code);
    signature(type);
    if (type === 'g') signature(value);
    else string(value);
  }
  const fieldsLength = bytes.length - fieldsStart;
  bytes.splice(12, 4, fieldsLength & 0xff, (fieldsLength >>> 8) & 0xff, 0, 0);
  pad(8);
  return Buffer.from([...bytes, ...body]);
}

/** The first whole message of `buffer` and its length, or undefined while more is to come. */
export function readMessage(buffer: Buffer): { message: Message; length: number } | undefined {
  if (buffer.length < 16) return undefined;
  const little = buffer[0] === 0x6c;
  const u32 = (at: number) => (little ? buffer.readUInt32LE(at) : buffer.readUInt32BE(at));
  const bodyLength = u32(4);
  const fieldsLength = u32(12);
  const bodyStart = align(16 + fieldsLength, 8);
  const length = bodyStart + bodyLength;
  if (buffer.length < length) return undefined;
  let replySerial: number | undefined;
  let errorName: string | undefined;
  let at = 16;
  while (at < 16 + fieldsLength) {
    at = align(at, 8);
    const code = buffer[at]!;
    const type = String.fromCharCode(buffer[at + 2]!);
    at += 4; // code, signature length (1), the type, its NUL
    if (type === 'u') {
      at = align(at, 4);
      if (code === 5) replySerial = u32(at);
      at += 4;
    } else if (type === 's' || type === 'o') {
      at = align(at, 4);
      const size = u32(at);
      if (code === 4) errorName = buffer.toString('utf8', at + 4, at + 4 + size);
      at += 4 + size + 1;
    } else if (type === 'g') {
      at += 1 + buffer[at]! + 1;
    } else break; // no other type in a header field (D-Bus spec): a message we cannot read
  }
  return {
    message: {
      type: buffer[1]!,
      replySerial,
      errorName,
      body: buffer.subarray(bodyStart, length),
      little,
    },
    length,
  };
}

/** An object path or string, the first value of a reply body. */
export function bodyString(message: Message): string {
  const size = message.little ? message.body.readUInt32LE(0) : message.body.readUInt32BE(0);
  return message.body.toString('utf8', 4, 4 + size);
}

/** The boolean in a variant, the body of a Properties.Get reply: signature `b`, then the value. */
export function bodyVariantBoolean(message: Message): boolean | undefined {
  const { body } = message;
  if (body[0] !== 1 || body[1] !== 0x62) return undefined;
  return (message.little ? body.readUInt32LE(4) : body.readUInt32BE(4)) === 1;
}
