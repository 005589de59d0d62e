import { randomBytes } from 'node:crypto'
import type { ResponseCache } from '../../cache/response-cache.ts'
import { countTokens, trimToTokens } from '../../text/tokens.ts'
import { ToolError } from './mcp.api.ts'

/**
 * Answers sized for a model: each tool answer is cut to `max_tokens` (o200k tokens of the text),
 * and what did not fit is paged with an opaque cursor. A billed answer (search, map, webpage,
 * extract) is kept for an hour under the caller's key, so reading its next page calls nothing and
 * costs nothing; a free one (crawl_result, batch_result, monitor lists) is read again.
 */

export const DEFAULT_MAX_TOKENS = 6000
export const MIN_MAX_TOKENS = 500
export const MAX_MAX_TOKENS = 50_000
const STASH_TTL_MS = 3600_000

/** Kept answers: per caller (an API key), never readable with another key. */
export interface Stash {
  put(value: unknown): Promise<string>
  get<T>(id: string): Promise<T | null>
}

/** In the server: the response cache (database or Redis), so any process behind the balancer can page it. */
export function cacheStash(cache: ResponseCache, keyId: string): Stash {
  const key = (id: string) => `mcp:page:${keyId}:${id}`
  return {
    async put(value) {
      const id = randomBytes(12).toString('base64url')
      await cache.set(key(id), value, STASH_TTL_MS)
      return id
    },
    async get<T>(id: string) {
      return ((await cache.get<T>(key(id)))?.value as T | undefined) ?? null
    },
  }
}

/** In `trawl mcp` (stdio, one key, one client): process memory, oldest dropped beyond 50 answers. */
export function memoryStash(maxEntries = 50): Stash {
  const entries = new Map<string, { value: unknown; until: number }>()
  return {
    async put(value) {
      const id = randomBytes(12).toString('base64url')
      if (entries.size >= maxEntries) entries.delete(entries.keys().next().value as string)
      entries.set(id, { value: structuredClone(value), until: Date.now() + STASH_TTL_MS })
      return id
    },
    async get<T>(id: string) {
      const entry = entries.get(id)
      if (!entry || entry.until <= Date.now()) return null
      return entry.value as T
    },
  }
}

/** What a cursor holds: the tool it continues, where to go on, and the kept answer when there is one. */
export interface Cursor {
  tool: string
  offset: number
  stash?: string
}

export function encodeCursor(c: Cursor): string {
  return Buffer.from(JSON.stringify([c.tool, c.offset, c.stash ?? null])).toString('base64url')
}

export function decodeCursor(text: string, tool: string): Cursor {
  let parsed: unknown
  try {
    parsed = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'))
  } catch {
    parsed = null
  }
  if (!Array.isArray(parsed) || typeof parsed[0] !== 'string' || !Number.isInteger(parsed[1]) || parsed[1] < 0) {
    throw new ToolError('invalid_request', 'cursor is not a cursor this server gave out; pass next_cursor from the previous answer unchanged')
  }
  if (parsed[0] !== tool) throw new ToolError('invalid_request', `cursor continues a ${parsed[0]} answer; pass it to ${parsed[0]}, not ${tool}`)
  return { tool, offset: parsed[1], stash: typeof parsed[2] === 'string' ? parsed[2] : undefined }
}

export async function readStash<T>(stash: Stash, cursor: Cursor): Promise<T> {
  const kept = cursor.stash ? await stash.get<T>(cursor.stash) : null
  if (!kept) {
    throw new ToolError('invalid_request', 'cursor has expired (answers are kept for an hour, for the key that asked); call the tool again without cursor')
  }
  return kept
}

/**
 * How many of `count` remaining items fit in `budget` tokens, at least one: `render(k)` draws the
 * first k of them with whatever heading and footer go around. Binary search on k; a text longer
 * than 12 characters a token is taken as too long without counting (o200k rarely packs more).
 */
export async function fitItems(count: number, budget: number, render: (k: number) => string): Promise<{ k: number; text: string; trimmed: boolean }> {
  if (count <= 0) return { k: 0, text: render(0), trimmed: false }
  const fits = async (text: string) => text.length <= budget * 12 && (await countTokens(text)) <= budget
  const all = render(count)
  if (await fits(all)) return { k: count, text: all, trimmed: false }
  let lo = 0 // fits (or nothing)
  let hi = count // does not fit
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2)
    if (await fits(render(mid))) lo = mid
    else hi = mid
  }
  if (lo > 0) return { k: lo, text: render(lo), trimmed: false }
  // Not even one item fits: it is shown alone, trimmed.
  const cut = await trimToTokens(render(1), budget)
  return { k: 1, text: `${cut.text}\n\n[trimmed to max_tokens]`, trimmed: true }
}

/** Splits long Markdown into blocks of at most `maxChars` at paragraph, then line, then hard boundaries. */
export function splitBlocks(text: string, maxChars = 1500): string[] {
  const out: string[] = []
  for (const paragraph of text.split(/\n{2,}/)) {
    if (!paragraph.trim()) continue
    if (paragraph.length <= maxChars) {
      out.push(paragraph)
      continue
    }
    let current = ''
    for (const line of paragraph.split('\n')) {
      if (line.length > maxChars) {
        if (current) out.push(current)
        current = ''
        for (let i = 0; i < line.length; i += maxChars) out.push(line.slice(i, i + maxChars))
        continue
      }
      if (current && current.length + 1 + line.length > maxChars) {
        out.push(current)
        current = line
      } else current = current ? `${current}\n${line}` : line
    }
    if (current) out.push(current)
  }
  return out
}
