import { brotliDecompressSync, gunzipSync, inflateSync } from 'node:zlib';

/**
 * An answer's body as text, its Content-Encoding undone; '' when that fails, and undefined when
 * the text would be longer than `maxLength` bytes (too large to be read at all).
 */
export function decodeBody(
  bytes: Buffer,
  encoding: string | undefined,
  maxLength?: number,
): string | undefined {
  const options = maxLength === undefined ? {} : { maxOutputLength: maxLength };
  try {
    if (encoding === 'gzip' || encoding === 'x-gzip') {
      return gunzipSync(bytes, options).toString('utf8');
    }
    if (encoding === 'deflate') return inflateSync(bytes, options).toString('utf8');
    if (encoding === 'br') return brotliDecompressSync(bytes, options).toString('utf8');
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE' ? undefined : '';
  }
  return maxLength !== undefined && bytes.length > maxLength ? undefined : bytes.toString('utf8');
}
