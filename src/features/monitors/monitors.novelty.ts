import { createHash } from 'node:crypto'
import { siteKey } from '../../site/urls/url.canonical.ts'

/**
 * Novelty detection (docs/monitors.md): a result is new when the hash of its canonical link was not
 * reported before under the monitor's current baseline. Only SHA-256 hashes are stored, never the
 * links themselves; canonical means siteKey (scheme, www., trailing slash, fragments and tracking
 * parameters folded), so the same page found as http://www.x.com/a/ and https://x.com/a is one.
 */

export const sha256 = (text: string) => createHash('sha256').update(text).digest('hex')

/** The hash a result is remembered by; null for a result without a usable link. */
export function linkHash(link: unknown): string | null {
  if (typeof link !== 'string' || link.trim() === '') return null
  return sha256(siteKey(link))
}

export interface Novelty<T> {
  /** New results, in the engine's order, each once. */
  fresh: T[]
  /** Their hashes, to remember. */
  hashes: string[]
}

/**
 * Splits `items` into what `seen` already holds and what is new. Two results with one canonical
 * link in the same run are reported once; results without a link are never reported (nothing to
 * remember them by, so they would come back as "new" every run).
 */
export function newResults<T extends { link?: unknown }>(items: T[], seen: Set<string>): Novelty<T> {
  const fresh: T[] = []
  const hashes: string[] = []
  const taken = new Set<string>()
  for (const item of items) {
    const hash = linkHash(item.link)
    if (!hash || seen.has(hash) || taken.has(hash)) continue
    taken.add(hash)
    fresh.push(item)
    hashes.push(hash)
  }
  return { fresh, hashes }
}

/** Every link hash of `items` (to ask the store which were seen). */
export const hashesOf = (items: { link?: unknown }[]) => [...new Set(items.map((i) => linkHash(i.link)).filter((h): h is string => h !== null))]
