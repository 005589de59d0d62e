/** The text helper shared by the Wikipedia parsers. */

/** Whitespace collapsed, trimmed; unlike normText, invisible marks are kept. */
export const clean = (s: string): string => s.replace(/\s+/g, ' ').trim()
