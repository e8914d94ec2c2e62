/**
 * A citation a user cannot follow: the contract (SPEC), the interface document (SERVICE.md), the
 * style guide, a section sign, or an issue number. Public specifications are named without one.
 */
export const CITATION = /SERVICE\.md|SPEC\.md|STYLE\.md|\bSPEC\b|§|\bissues? #?\d+|\(#\d+\)/;
