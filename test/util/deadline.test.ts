import { createServer, connect, type AddressInfo, type Socket } from 'node:net';
import { expect, it } from 'vitest';
import { atDeadline } from '../../src/util/deadline.js';

it('an answer that arrived before the deadline was looked at is read first (a starved process)', async () => {
  let serverSide!: Socket;
  const server = createServer((socket) => (serverSide = socket));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const client = connect((server.address() as AddressInfo).port, '127.0.0.1');
  await new Promise((resolve) => client.once('connect', resolve));
  while (!serverSide) await new Promise((resolve) => setImmediate(resolve));
  try {
    let answered = false;
    client.on('data', () => (answered = true));
    const expired = new Promise<boolean>((resolve) => atDeadline(10, () => resolve(answered)));
    serverSide.write('the answer');
    // The process is busy past the deadline while the answer waits in the socket.
    const until = Date.now() + 100;
    while (Date.now() < until);
    expect(await expired).toBe(true);
  } finally {
    client.destroy();
    serverSide.destroy();
    server.close();
  }
});

it('cancelled, it never expires', async () => {
  let expired = false;
  const cancel = atDeadline(0, () => (expired = true));
  cancel();
  await new Promise((resolve) => setTimeout(resolve, 20));
  expect(expired).toBe(false);
});
