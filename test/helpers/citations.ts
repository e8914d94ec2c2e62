/** An issue number, in whatever letter case: `issue 14.3`, `Issue #8`, `issues 9.1`, `(#12)`. */
const ISSUE_NUMBER = String.raw`\b[Ii]ssues? ?#?\d+(?:\.\d+)?\b(?!-)|\(#\d+\)`;

/** An issue number cited: what a test or script says instead is what it proves or measures. */
export const ISSUE = new RegExp(ISSUE_NUMBER);

/**
 * How an issue number is cited, each of which ISSUE must find (this file is the one a test or
 * script may write them in), and the words beside them it must leave alone.
 */
export const ISSUE_CITED = [
  "describe('loopback listener under hostile requests (issue 14.1)'",
  '// Issue 14.3: kill -9 during dasvc token refresh',
  '(12 in 40 before issue 14.3)',
  'the figure of issue 8 item 5',
  'issues 9.1 and 9.2',
  'issue #12',
  'Issue#7',
  'fixed in (#31)',
];
export const NOT_ISSUE_CITED = [
  'const issue = () => tokens()',
  "name: 'contacts.find #1'",
  'the issues a user meets',
  'tissue 5',
];

/**
 * A citation a user cannot follow: the contract (SPEC), the interface document (SERVICE.md), the
 * style guide, a section sign, or an issue number. Public specifications are named without one.
 */
export const CITATION = new RegExp(
  String.raw`SERVICE\.md|SPEC\.md|STYLE\.md|\bSPEC\b|§|${ISSUE_NUMBER}`,
);

/** The same in documentation, where a section of an RFC (`RFC 7009 §2.2`) is a public reference. */
export const DOC_CITATION = new RegExp(
  String.raw`SERVICE\.md|SPEC\.md|STYLE\.md|\bSPEC\b|(?<!RFC \d{4} )§|${ISSUE_NUMBER}`,
);
