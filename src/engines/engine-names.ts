/**
 * What the rest of the code says about provider names, read off a capability table (registry.ts)
 * so that nothing else lists them: the names accepted, the longest engine list, and the names a
 * parameter's description gives.
 */

/** What these helpers read of a capability-table row. */
export interface NamedRow {
  /** The operator's own service: a provider only on servers that configure it. */
  configuredOnly?: boolean
}

const configuredOnly = (row: object) => (row as NamedRow).configuredOnly === true

/** Every name of a table: the built-in providers in table order, then the operator's own services. */
export function engineNamesOf<N extends string>(table: Record<N, object>): N[] {
  const names = Object.keys(table) as N[]
  return [...names.filter((n) => !configuredOnly(table[n])), ...names.filter((n) => configuredOnly(table[n]))]
}

/** The providers every server has, in table order (the primary first). */
export function builtInNamesOf<N extends string>(table: Record<N, object>): N[] {
  return (Object.keys(table) as N[]).filter((n) => !configuredOnly(table[n]))
}

/** The primary: the table's first row, which every server has. */
export function primaryOf<N extends string>(table: Record<N, object>): N {
  const [first] = Object.keys(table) as N[]
  if (first === undefined || configuredOnly(table[first])) throw new Error('the capability table must start with a built-in provider')
  return first
}

export interface NamesStyle {
  /** Put after the primary's name: `(default)` unless told, nothing when null. */
  primary?: string | null
  /** Before the last name: `or` ("…, startpage or wikipedia") unless told, `,` for a plain list. */
  last?: 'or' | ','
}

/** Names as a description reads them: "google (default), bing, … or wikipedia". */
export function namesText(names: readonly string[], { primary = '(default)', last = 'or' }: NamesStyle = {}): string {
  const words = names.map((n, i) => (i === 0 && primary ? `${n} ${primary}` : n))
  if (words.length < 2 || last === ',') return words.join(', ')
  return `${words.slice(0, -1).join(', ')} or ${words.at(-1)}`
}
