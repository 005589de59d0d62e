/**
 * The `sc` code Startpage's search form carries, read from its home page and kept in memory for
 * up to an hour (it stays valid for a while; fetching the home page before every search would
 * double the traffic). Concurrent searches share one home page fetch.
 */
import { ApiError } from '../../errors.ts'
import type { EngineFetch } from '../provider.types.ts'
import { detectStartpageBlock } from './startpage.block.ts'
import { readScCode, startpageHomeRequest } from './startpage.request.ts'

export const SC_TTL_MS = 60 * 60 * 1000

let cached: { code: Promise<string>; at: number } | undefined

/** The cached code, or a fresh one fetched through `fetch`. */
export function startpageSc(fetch: EngineFetch, language: string, now = Date.now()): Promise<string> {
  if (cached && now - cached.at < SC_TTL_MS) return cached.code
  const code = fetchSc(fetch, language)
  const entry = { code, at: now }
  cached = entry
  // A failed fetch is not cached: the next search tries again.
  code.catch(() => {
    if (cached === entry) cached = undefined
  })
  return code
}

/** Drops the cached code (after a search it may have caused to fail, and in tests). */
export function forgetStartpageSc(): void {
  cached = undefined
}

async function fetchSc(fetch: EngineFetch, language: string): Promise<string> {
  const { url, headers } = startpageHomeRequest(language)
  const home = await fetch(url, headers, detectStartpageBlock)
  const code = readScCode(home.body)
  if (!code) throw new ApiError('upstream_error', 'startpage results could not be fetched (no sc code on its home page)')
  return code
}
