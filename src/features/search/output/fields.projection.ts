/**
 * `fields=`: a comma-separated list of dotted paths that trims a JSON response to what the caller reads.
 *
 * Semantics, precisely (the rule, README.md "Stable shapes": same top-level keys, fewer item fields, meta always kept):
 * - `request` and `meta` are always kept whole; naming them, or a path inside them, is accepted and changes nothing.
 * - Every other top-level key stays, so the envelope keeps its keys: a bare name (`knowledge_graph`) keeps the whole
 *   value, a dotted path (`answer_box.answer`) keeps only that part, and an unnamed key is emptied: a list becomes
 *   `[]`, an object null (as the full response has it when the page lacks the block), a scalar stays. A caller
 *   asking for `results.title,results.link` gets a small body in which `body.people_also_ask` is still a list.
 * - Arrays are walked element by element, at any depth: `results.sitelinks.title` keeps the title of every sitelink
 *   of every result. An element keeps its place even when nothing in it matched (it becomes `{}`), so positions in
 *   the list still line up with the full response.
 * - A path that does not exist in the data selects nothing; it is not an error, since fields such as `date` are
 *   missing on some results and present on others.
 */
import { ApiError } from '../../../errors.ts'
import type { JsonObject } from './output.types.ts'

/** One parsed `fields=` entry: `results.sitelinks.title` becomes `['results', 'sitelinks', 'title']`. */
export type FieldPath = readonly string[]

export const MAX_FIELD_PATHS = 50

// Wire keys are snake_case; upper case is let through for keys that come from page text (knowledge_graph attributes).
const SEGMENT = /^[A-Za-z0-9_]+$/
const ALWAYS_KEPT = new Set(['request', 'meta'])

/** `true` keeps the whole value; a map keeps only the listed keys, each with its own selection. */
type Selection = true | Map<string, Selection>

/**
 * Validates and splits a `fields=` value. `allowedTopLevel` is the vertical's envelope keys (see `topLevelKeys`).
 * Throws `invalid_request` naming the bad path. Whitespace around commas is tolerated; duplicates are dropped.
 */
export function parseFields(spec: string, allowedTopLevel: readonly string[]): FieldPath[] {
  const entries = spec.split(',').map((entry) => entry.trim())
  if (entries.every((entry) => entry === '')) {
    throw fieldsError('must list at least one path, e.g. results.title,results.link')
  }
  if (entries.length > MAX_FIELD_PATHS) {
    throw fieldsError(`at most ${MAX_FIELD_PATHS} paths are allowed, got ${entries.length}`)
  }
  const paths: FieldPath[] = []
  const seen = new Set<string>()
  entries.forEach((entry, index) => {
    if (entry === '') throw fieldsError(`path ${index + 1} is empty (check for a doubled or trailing comma)`)
    const segments = entry.split('.')
    if (segments.some((segment) => segment === '')) throw fieldsError(`${quote(entry)} has an empty segment`)
    if (!segments.every((segment) => SEGMENT.test(segment))) {
      throw fieldsError(`${quote(entry)} may contain only letters, digits, underscores and dots`)
    }
    const top = segments[0] as string // split always yields at least one segment
    if (!allowedTopLevel.includes(top)) {
      throw fieldsError(`unknown key ${quote(top)}; allowed: ${allowedTopLevel.join(', ')}`)
    }
    if (seen.has(entry)) return
    seen.add(entry)
    paths.push(segments)
  })
  return paths
}

/** Returns a new body with only the selected paths (see the file comment for the exact rules). */
export function projectFields(body: JsonObject, fields: readonly FieldPath[]): JsonObject {
  const selection = buildSelection(fields)
  const out: JsonObject = {}
  // Walk the body, not the selection, so the output keeps the envelope's key order.
  for (const [key, value] of Object.entries(body)) {
    if (ALWAYS_KEPT.has(key)) {
      out[key] = value
      continue
    }
    const selected = selection.get(key)
    out[key] = selected === undefined ? emptied(value) : (project(value, selected) ?? emptied(value))
  }
  return out
}

/** An unnamed top-level value: `[]` for a list, null for an object, a scalar as it is. */
function emptied(value: unknown): unknown {
  if (Array.isArray(value)) return []
  return isPlainObject(value) ? null : value
}

function buildSelection(fields: readonly FieldPath[]): Map<string, Selection> {
  const root = new Map<string, Selection>()
  for (const path of fields) {
    let node = root
    for (const [index, segment] of path.entries()) {
      if (index === path.length - 1) {
        node.set(segment, true) // a shorter path wins over any longer one under it
        break
      }
      const existing = node.get(segment)
      if (existing === true) break // already kept whole
      const child = existing ?? new Map<string, Selection>()
      node.set(segment, child)
      node = child
    }
  }
  return root
}

function project(value: unknown, selection: Selection): unknown {
  if (selection === true) return value
  if (Array.isArray(value)) {
    return value.map((element) => project(element, selection)).filter((element) => element !== undefined)
  }
  if (!isPlainObject(value)) return undefined // the path goes deeper than the data does
  const out: JsonObject = {}
  for (const [key, child] of Object.entries(value)) {
    const selected = selection.get(key)
    if (selected === undefined) continue
    const projected = project(child, selected)
    if (projected !== undefined) out[key] = projected
  }
  return out
}

export function isPlainObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function fieldsError(detail: string): ApiError {
  return new ApiError('invalid_request', `fields: ${detail}`)
}

// Echoes caller input inside an error message without letting control characters or a huge value through.
function quote(value: string): string {
  return JSON.stringify(value.length > 60 ? `${value.slice(0, 60)}…` : value)
}
