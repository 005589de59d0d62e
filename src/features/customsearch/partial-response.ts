import { ApiError } from '../../errors.ts'

/**
 * Google APIs' `fields` partial-response syntax (`items(title,link),searchInformation/totalResults`),
 * which Custom Search clients send to trim answers. Written by hand: it is a 40-line grammar, and no
 * maintained npm package implements it without pulling in a Google client.
 *
 *   fields := field (',' field)*      field := path ['(' fields ')']      path := name ('/' name)*
 *
 * A name is a key or `*` (every key). Arrays apply the selection to each element.
 */
export type Selection = Map<string, Selection | true>

export function parsePartialFields(text: string): Selection {
  let i = 0
  const fail = (why: string): never => {
    throw new ApiError('invalid_request', `fields: ${why} at position ${i + 1} of "${text}"`)
  }
  const name = () => {
    const m = /^(\*|[A-Za-z_][\w.-]*)/.exec(text.slice(i))
    if (!m) fail('expected a field name')
    i += m![0].length
    return m![0]
  }
  const list = (depth: number): Selection => {
    const out: Selection = new Map()
    for (;;) {
      const path = [name()]
      while (text[i] === '/') {
        i++
        path.push(name())
      }
      let leaf: Selection | true = true
      if (text[i] === '(') {
        i++
        leaf = list(depth + 1)
        if (text[i] !== ')') fail('expected )')
        i++
      }
      merge(out, path, leaf)
      if (text[i] !== ',') break
      i++
    }
    if (depth === 0 && i < text.length) fail('unexpected character')
    return out
  }
  if (text.length > 1024) throw new ApiError('invalid_request', 'fields must be at most 1,024 characters')
  return list(0)
}

function merge(into: Selection, path: string[], leaf: Selection | true) {
  const [head, ...rest] = path as [string, ...string[]]
  const value: Selection | true = rest.length
    ? (() => {
        const child: Selection = new Map()
        merge(child, rest, leaf)
        return child
      })()
    : leaf
  const existing = into.get(head)
  if (existing === true || value === true) into.set(head, true)
  else if (existing) for (const [k, v] of value) merge(existing, [k], v)
  else into.set(head, value)
}

/** `value` reduced to the selected fields; missing fields are left out, as Google does. */
export function applyPartialFields(value: unknown, sel: Selection): unknown {
  if (Array.isArray(value)) return value.map((v) => applyPartialFields(v, sel))
  if (value === null || typeof value !== 'object') return value
  const source = value as Record<string, unknown>
  const out: Record<string, unknown> = {}
  const all = sel.get('*')
  for (const key of Object.keys(source)) {
    const pick = sel.get(key) ?? all
    if (pick === undefined) continue
    out[key] = pick === true ? source[key] : applyPartialFields(source[key], pick)
  }
  return out
}
