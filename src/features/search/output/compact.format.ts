/**
 * `format=compact`: the JSON body cut down to what a language model needs to pick a result, for the fewest tokens.
 *
 * Rules: the top-level keys stay exactly as they are (README.md "Stable shapes"); `request` and `meta` are kept whole;
 * items and feature blocks keep only the fields listed below; inside them null, empty strings, empty arrays and
 * empty objects are dropped. A top-level key without a rule here (a future extra) passes through, pruned the same way.
 */
import { type FieldPath, isPlainObject, projectFields } from './fields.projection.ts'
import type { JsonObject, Vertical } from './output.types.ts'

/** A field to keep, or a group of which only the first non-empty member is kept. */
type Keep = string | { firstOf: readonly string[] }

/** Per top-level key, the item fields compact keeps. Dotted names reach into nested objects (`user.name`). */
type Rules = Readonly<Record<string, readonly Keep[]>>

// A place's id is kept on maps and places because it is what /v1/reviews takes next; a model chaining the two
// calls would otherwise have to ask again in full JSON.
const PLACE_FIELDS = ['position', 'title', 'address', 'rating', 'rating_count', 'phone_number', 'website', 'place_id']

const RULES: Record<Vertical, Rules> = {
  search: {
    // content: the pages include_content read (and was paid for) stay; absent otherwise.
    results: ['position', 'title', 'link', 'snippet', 'content', 'content_error.message'],
    people_also_ask: ['question', 'snippet'],
    related_searches: ['query'],
    knowledge_graph: ['title', 'description'],
    answer_box: [{ firstOf: ['answer', 'snippet'] }],
    top_stories: ['title', 'link', 'source', 'date'],
    places: ['title', 'address', 'rating'],
    ads: ['title', 'link'],
  },
  news: { results: ['position', 'title', 'link', 'source', 'date', 'snippet'] },
  images: { results: ['position', 'title', 'image_url', 'link'] },
  videos: { results: ['position', 'title', 'link', 'channel', 'duration', 'date'] },
  maps: { results: PLACE_FIELDS },
  places: { results: PLACE_FIELDS },
  shopping: { results: ['position', 'title', 'price', 'source', 'link', 'rating'] },
  scholar: { results: ['position', 'title', 'link', 'publication_info', 'year', 'cited_by'] },
  patents: { results: ['position', 'title', 'link', 'publication_number', 'assignee', 'publication_date'] },
  reviews: { results: ['rating', 'date', 'snippet', 'user.name'] },
  autocomplete: { results: ['value'] },
  lens: { results: ['position', 'title', 'link', 'source'] },
}

/** The compact form of `body` (see the file comment). Never mutates `body`. */
export function compactBody(vertical: Vertical, body: JsonObject): JsonObject {
  return pruneBody(projectFields(body, compactPaths(vertical, body)), vertical)
}

/**
 * Drops null and empty values below the top level. Also used after a caller's own `fields=` with format=compact,
 * where the caller's paths choose the fields and compact only removes the empty ones.
 */
export function pruneBody(body: JsonObject, vertical?: Vertical): JsonObject {
  const rules = vertical ? RULES[vertical] : {}
  const out: JsonObject = {}
  for (const [key, value] of Object.entries(body)) {
    if (key === 'request' || key === 'meta') {
      out[key] = value
      continue
    }
    const groups = (rules[key] ?? []).filter((keep) => typeof keep !== 'string')
    const reduced = groups.length > 0 ? keepFirstOf(value, groups) : value
    // The key itself always stays, even when empty: compact keeps the envelope's top-level keys.
    out[key] = prune(reduced) ?? emptyLike(value)
  }
  return out
}

function compactPaths(vertical: Vertical, body: object): FieldPath[] {
  const rules = RULES[vertical]
  const paths: FieldPath[] = []
  for (const key of Object.keys(body)) {
    const keeps = rules[key]
    if (!keeps) {
      paths.push([key]) // no rule: kept whole (request and meta are kept by projectFields anyway)
      continue
    }
    for (const keep of keeps) {
      const names = typeof keep === 'string' ? [keep] : keep.firstOf
      for (const name of names) paths.push([key, ...name.split('.')])
    }
  }
  return paths
}

function keepFirstOf(value: unknown, groups: readonly Keep[]): unknown {
  if (Array.isArray(value)) return value.map((element) => keepFirstOf(element, groups))
  if (!isPlainObject(value)) return value
  const out = { ...value }
  for (const group of groups) {
    if (typeof group === 'string') continue
    const winner = group.firstOf.find((name) => prune(out[name]) !== undefined)
    for (const name of group.firstOf) if (name !== winner) delete out[name]
  }
  return out
}

/** `undefined` means "nothing worth sending"; the caller leaves the key out. */
function prune(value: unknown): unknown {
  if (value === null || value === undefined) return undefined
  if (typeof value === 'string') return value.trim() === '' ? undefined : value
  if (Array.isArray(value)) {
    // An item whose fields were all empty stays as {}, so the list still lines up with the full response.
    const kept = value.map((element) => (isPlainObject(element) ? pruneObject(element) : prune(element))).filter((element) => element !== undefined)
    return kept.length > 0 ? kept : undefined
  }
  if (isPlainObject(value)) {
    const out = pruneObject(value)
    return Object.keys(out).length > 0 ? out : undefined
  }
  return value
}

function pruneObject(value: JsonObject): JsonObject {
  const out: JsonObject = {}
  for (const [key, child] of Object.entries(value)) {
    const kept = prune(child)
    if (kept !== undefined) out[key] = kept
  }
  return out
}

function emptyLike(value: unknown): unknown {
  if (Array.isArray(value)) return []
  return isPlainObject(value) ? {} : value
}
