/** The line to print for a Node.js version older than needed, or null when it is recent enough. */
export function nodeVersionProblem(version: string): string | null
