import { type EngineGate, GateError, type GateHttp, type GateResponse, type PowSolver } from './gate.types.ts'
import { earnedCookies } from './gate-http.ts'

/**
 * Anubis (TecharoHQ/anubis), the proof-of-work page a site puts before clients it does not
 * trust, as its own page script passes it (web/js/main.ts, lib/anubis.go PassChallenge):
 *
 * - the page carries its challenge as JSON, `<script id="anubis_challenge" type="application/json">`
 *   `{"rules":{"algorithm":"fast","difficulty":4},"challenge":{"id":…,"randomData":…}}` (before
 *   v1.22 `challenge` was the random data itself, with no id), and the path prefix of its
 *   endpoints as `anubis_base_prefix`; the answer also sets the "cookie-verification" cookie
 *   (Startpage's deployment adds `sp_pow`), which must go back with the pass;
 * - the work: the first nonce from 0 whose SHA-256 over randomData followed by the nonce in
 *   decimal has `difficulty` leading hex zeros ("fast"; "slow" is the same sum);
 * - the pass: a navigation to `<prefix>/.within.website/x/cmd/anubis/api/pass-challenge` with
 *   `id`, `response` (the hash), `nonce`, `redir` and `elapsedTime` (ms), in that order. Anubis
 *   answers 302 to `redir` setting its auth cookie (Startpage: `spchal-auth`), or an error page
 *   that clears it (500 when the verification cookie is missing, or for a spent challenge).
 *
 * `redir` is the challenged page's path and query (Anubis takes a relative or a same-host
 * absolute one; its page script sends the whole address, its meta-refresh variant the path).
 * The original request, a Startpage form POST included, is asked again by the upstream client
 * once the auth cookie is in the jar, so where `redir` points is never followed.
 */

export interface AnubisChallenge {
  /** The challenged page (the engine's address). */
  pageUrl: string
  /** Why the challenge cannot be passed, when the page's challenge could not be read. */
  problem?: string
  id?: string
  randomData: string
  difficulty: number
  algorithm: string
  basePrefix: string
}

const MARKER = 'anubis_challenge'
/** The algorithms that are SHA-256 with leading hex zeros (Anubis registers both names). */
const SHA_ALGORITHMS = new Set(['fast', 'slow'])
const PASS_PATH = '/.within.website/x/cmd/anubis/api/pass-challenge'

/** The JSON text of `<script id="NAME" …>…</script>`, or undefined. */
function jsonScript(body: string, id: string): string | undefined {
  const re = new RegExp(`<script\\b[^>]*\\bid\\s*=\\s*["']?${id}(?=["'\\s>])[^>]*>([\\s\\S]*?)</script\\s*>`, 'i')
  return re.exec(body)?.[1]
}

/** The Anubis challenge of a page, or null when the page has none. Cheap on a page without the marker. */
export function readAnubisChallenge(res: Pick<GateResponse, 'url' | 'body'>): AnubisChallenge | null {
  if (!res.body?.includes(MARKER)) return null
  const text = jsonScript(res.body, MARKER)
  if (text === undefined) return null
  const unreadable = (problem: string): AnubisChallenge => ({ pageUrl: res.url, problem, randomData: '', difficulty: 0, algorithm: '', basePrefix: '' })
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch {
    return unreadable('the challenge on the page is not JSON')
  }
  const { challenge, rules } = (json ?? {}) as { challenge?: unknown; rules?: { algorithm?: unknown; difficulty?: unknown } }
  const data = typeof challenge === 'string' ? { randomData: challenge } : ((challenge ?? {}) as { id?: unknown; randomData?: unknown })
  if (typeof data.randomData !== 'string' || data.randomData === '') return unreadable('the challenge on the page has no random data')
  const difficulty = Number(rules?.difficulty)
  if (!Number.isInteger(difficulty) || difficulty < 0) return unreadable('the challenge on the page has no difficulty')
  return {
    pageUrl: res.url,
    ...('id' in data && typeof data.id === 'string' && data.id ? { id: data.id } : {}),
    randomData: data.randomData,
    difficulty,
    algorithm: typeof rules?.algorithm === 'string' && rules.algorithm ? rules.algorithm : 'fast',
    basePrefix: basePrefixOf(res.body),
  }
}

/** The page's `anubis_base_prefix` when it is a plain path ('' otherwise, or when absent). */
function basePrefixOf(body: string): string {
  const text = jsonScript(body, 'anubis_base_prefix')
  if (text === undefined) return ''
  try {
    const prefix = JSON.parse(text) as unknown
    if (typeof prefix !== 'string') return ''
    const trimmed = prefix.replace(/\/+$/, '')
    // A path of plain segments only: never another origin (`//host`) or a scheme.
    return /^(?:\/[\w.~%@!$&'()*+,;=:-]+)*$/.test(trimmed) ? trimmed : ''
  } catch {
    return ''
  }
}

/** The pass-challenge address for a solved challenge, on the challenged page's origin. */
export function passChallengeUrl(c: AnubisChallenge, solved: { nonce: number; hash: string; ms: number }): string {
  const page = new URL(c.pageUrl)
  const url = new URL(c.basePrefix + PASS_PATH, page.origin)
  if (c.id) url.searchParams.set('id', c.id)
  url.searchParams.set('response', solved.hash)
  url.searchParams.set('nonce', String(solved.nonce))
  url.searchParams.set('redir', page.pathname + page.search)
  url.searchParams.set('elapsedTime', String(Math.max(1, Math.round(solved.ms))))
  return url.href
}

export const anubisGate: EngineGate = {
  name: 'anubis',
  detect: (res) => readAnubisChallenge(res),
  async pass(challenge: unknown, http: GateHttp, solve: PowSolver): Promise<void> {
    const c = challenge as AnubisChallenge
    if (c.problem) throw new GateError(c.problem)
    if (!SHA_ALGORITHMS.has(c.algorithm)) throw new GateError(`unsupported challenge algorithm "${c.algorithm.slice(0, 40)}"`)
    const solved = await solve({ kind: 'sha256-prefix', challenge: c.randomData, difficulty: c.difficulty }, 'anubis')
    if (!solved.hash) throw new GateError('proof of work gave no hash')
    // The page script's own navigation: same-origin, from the challenge page.
    const res = await http.get(passChallengeUrl(c, { nonce: solved.nonce, hash: solved.hash, ms: solved.ms }), {
      referer: c.pageUrl,
      'sec-fetch-site': 'same-origin',
    })
    if (res.status >= 400) throw new GateError(`the engine refused the solved challenge (HTTP ${res.status})`)
    const earned = earnedCookies(res).filter((name) => !/cookie-verification/i.test(name))
    if (earned.length === 0) throw new GateError(`the pass set no auth cookie (HTTP ${res.status})`)
  },
}
