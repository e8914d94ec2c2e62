import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/errors.js';
import { parsePort } from '../../src/cli/port.js';

// Regression: login read --port with Number(), so " 80" and "1e3" passed there but not in mock.
describe('parsePort (login --port, mock --port)', () => {
  it.each([
    ['0', 0],
    ['8080', 8080],
    ['65535', 65_535],
  ] as const)('reads %s', (text, port) => {
    expect(parsePort(text)).toBe(port);
  });

  it.each([' 80', '1e3', '65536', '-1', 'http', '', '8080.0'])('refuses %j', (text) => {
    expect(() => parsePort(text)).toThrow(UsageError);
  });

  it('says what a port is, in the words the library uses too', () => {
    expect(() => parsePort('65536')).toThrow(
      /^--port must be a whole number from 0 to 65535, got 65536$/,
    );
    expect(() => parsePort('1e3')).toThrow(/^--port must be .*, got "1e3"$/);
    expect(() => parsePort('-1')).toThrow(expect.objectContaining({ code: 'bad_port' }));
  });
});
