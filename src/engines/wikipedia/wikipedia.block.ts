/**
 * Wikimedia block detection. The API limits clients with HTTP 429, with JSON errors
 * (`{"error":{"code":"ratelimited"|"maxlag",…}}`, sometimes on HTTP 200), and refuses clients
 * that break its User-Agent policy with a 403 page naming the robot policy.
 */
import type { BlockCheckInput } from '../upstream/upstream.types.ts'
import { apiErrorOf } from './wikipedia.parse.ts'

const BLOCK_CODES = new Set(['ratelimited', 'maxlag'])

export function detectWikipediaBlock(r: BlockCheckInput): { reason: string } | null {
  if (r.status === 429) return { reason: 'HTTP 429 from Wikimedia' }
  const error = r.body.includes('"error"') ? apiErrorOf(r.body) : undefined
  if (error && BLOCK_CODES.has(error.code)) return { reason: `Wikimedia API error ${error.code}` }
  if (r.status === 403 && /robot policy|user-agent/i.test(r.body)) return { reason: 'Wikimedia refused the client (robot policy)' }
  return null
}
