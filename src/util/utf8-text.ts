/**
 * The UTF-8 text of `bytes` up to `end`, decoded in place: a Buffer by its own range, any other
 * view through a Buffer over the same memory, never a copy of the bytes first.
 */
export function utf8Text(bytes: Uint8Array, end = bytes.byteLength): string {
  if (Buffer.isBuffer(bytes)) return bytes.toString('utf8', 0, end);
  return Buffer.from(bytes.buffer, bytes.byteOffset, end).toString('utf8');
}
