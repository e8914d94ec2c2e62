/**
 * A citation a user cannot follow: the contract (SPEC), the interface document (SERVICE.md), the
 * style guide, a section sign, or an issue number. Public specifications are named without one.
 */
export const CITATION =
  /SERVICE\.md|SPEC\.md|STYLE\.md|\bSPEC\b|§|\bissues? #?\d+(?:\.\d+)?\b(?!-)|\(#\d+\)/;

/** The same in documentation, where a section of an RFC (`RFC 7009 §2.2`) is a public reference. */
export const DOC_CITATION =
  /SERVICE\.md|SPEC\.md|STYLE\.md|\bSPEC\b|(?<!RFC \d{4} )§|\bissues? #?\d+(?:\.\d+)?\b(?!-)|\(#\d+\)/;
