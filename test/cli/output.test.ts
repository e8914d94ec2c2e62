// What goes with an error on stdout under --json: an answer the command printed, or one main
// prints with the error as its `error` member, kept when the error is retold (an interruption).
import { describe, expect, it } from 'vitest';
import { InterruptedError, ServiceError } from '../../src/errors.js';
import { answeredWith, answerOf, sameAnswer, stdoutAnswered } from '../../src/cli/output.js';

describe('the answer that goes with an error', () => {
  it('is none, printed, or an object to print with it', () => {
    expect(answerOf(new ServiceError('x'))).toBeUndefined();
    expect(answerOf(stdoutAnswered(new ServiceError('x')))).toBe('printed');
    const report = { installation: 'http://127.0.0.1:8080', rules: [] };
    expect(answerOf(answeredWith(new ServiceError('x'), report))).toBe(report);
    expect(answerOf('not an object')).toBeUndefined();
  });

  it('goes with the interruption that retells an error (Ctrl-C after the answer was made)', () => {
    const report = { rules: [] };
    const deviated = answeredWith(new ServiceError('1 rule deviates'), report);
    expect(answerOf(sameAnswer(new InterruptedError('interrupted'), deviated))).toBe(report);
    const printed = stdoutAnswered(new ServiceError('a batch failed'));
    expect(answerOf(sameAnswer(new InterruptedError('interrupted'), printed))).toBe('printed');
    expect(answerOf(sameAnswer(new InterruptedError('interrupted'), new Error('x')))).toBe(
      undefined,
    );
  });
});
