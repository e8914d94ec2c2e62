/** The declarations of the exports, from those tsc wrote for src/ (scripts/declarations.mjs). */
export function shipDeclarations(options: {
  /** tsc's declarations folder. */
  from: string;
  /** Where the shipped files go. */
  to: string;
  /** Shipped name → tsc's file under `from`. */
  entries: Record<string, string>;
  /** The optional peer dependencies: a file importing one ships on its own. */
  peers: string[];
}): void;
