import { createHash, createHmac, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto'
import type { IncomingMessage, ServerResponse } from 'node:http'

/**
 * An Anubis gate (TecharoHQ/anubis) in front of a fake engine's pages, working as the public
 * source does, not from recorded pages: a random challenge per visit (64 random bytes, hex, kept
 * under a UUID for 30 minutes), the challenge page with its JSON scripts and the
 * cookie-verification cookie, and the pass-challenge endpoint that checks SHA-256(randomData +
 * nonce) and its leading zeros, refuses a spent challenge, and answers 302 with a signed auth
 * cookie that expires. Startpage's deployment (degoog-org/official-extensions PR #40) is
 * `{ cookiePrefix: 'spchal', extraCookies: ['sp_pow'] }`: the challenge page sets
 * `spchal-cookie-verification` and `sp_pow`; a pass without them answers 500 and clears
 * `spchal-auth`; with them, 302 setting `spchal-auth`.
 *
 * The auth cookie is `base64url(JSON {challenge, exp})` + "." + its HMAC-SHA256 (Anubis signs a JWT).
 */

type Handler = (req: IncomingMessage, res: ServerResponse) => void

export interface AnubisUpstreamOptions {
  difficulty: number
  /** Anubis's --cookie-prefix: the cookies are `<prefix>-auth` and `<prefix>-cookie-verification`. */
  cookiePrefix?: string
  /** More cookies the challenge page sets and the pass requires (Startpage: `sp_pow`). */
  extraCookies?: string[]
  /** Life of the auth cookie (Anubis's default is a week). */
  authTtlSeconds?: number
  /** Anubis's BASE_PREFIX. */
  basePrefix?: string
  algorithm?: string
  /** Which requests the gate stands before (default: all but its own endpoints). */
  gated?: (req: IncomingMessage) => boolean
  /**
   * For tests of the solve cap: random data no nonce below this solves, so the work surely takes
   * longer than a short cap. Found once, when the gate is made (it takes a while), and shared by
   * every challenge this gate issues.
   */
  unsolvableBelow?: number
}

export interface AnubisStats {
  /** Challenge pages served (a challenge issued each). */
  challenges: number
  /** Passes accepted (auth cookies issued). */
  passes: number
  /** Pass requests refused, with why. */
  refused: string[]
  /** Requests let through to the pages with a valid auth cookie. */
  served: number
}

export interface AnubisUpstream {
  handler: Handler
  stats: AnubisStats
  setDifficulty(difficulty: number): void
}

interface Issued {
  randomData: string
  difficulty: number
  issuedAt: number
  spent: boolean
  extra: Record<string, string>
}

const PASS_PATH = '/.within.website/x/cmd/anubis/api/pass-challenge'

export function parseCookies(header: string | undefined): Record<string, string> {
  const out: Record<string, string> = {}
  for (const part of (header ?? '').split(';')) {
    const eq = part.indexOf('=')
    if (eq > 0) out[part.slice(0, eq).trim()] = part.slice(eq + 1).trim()
  }
  return out
}

/** A signed, expiring token: base64url(JSON) "." base64url(HMAC-SHA256). */
export function signToken(secret: Buffer, claims: Record<string, unknown>): string {
  const body = Buffer.from(JSON.stringify(claims)).toString('base64url')
  return `${body}.${createHmac('sha256', secret).update(body).digest('base64url')}`
}

/** The token's claims when its signature holds and `exp` (seconds) is still ahead, else null. */
export function verifyToken(secret: Buffer, token: string | undefined): Record<string, unknown> | null {
  const [body, mac] = (token ?? '').split('.')
  if (!body || !mac) return null
  const want = createHmac('sha256', secret).update(body).digest()
  const got = Buffer.from(mac, 'base64url')
  if (got.length !== want.length || !timingSafeEqual(got, want)) return null
  try {
    const claims = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as Record<string, unknown>
    return typeof claims.exp === 'number' && claims.exp > Date.now() / 1000 ? claims : null
  } catch {
    return null
  }
}

/** 64 random bytes as hex, drawn again while a nonce below `below` solves them at `difficulty`. */
function hardData(difficulty: number, below: number): string {
  const zeros = '0'.repeat(difficulty)
  for (;;) {
    const data = randomBytes(64).toString('hex')
    const base = createHash('sha256').update(data)
    let solvable = false
    for (let n = 0; n < below && !solvable; n++) solvable = base.copy().update(String(n)).digest('hex').startsWith(zeros)
    if (!solvable) return data
  }
}

/** Escapes JSON for a <script> element as Go's encoder does (templ.JSONScript). */
const scriptJson = (value: unknown) => JSON.stringify(value).replace(/</g, '\\u003c').replace(/>/g, '\\u003e').replace(/&/g, '\\u0026')

export function anubisUpstream(pages: Handler, opts: AnubisUpstreamOptions): AnubisUpstream {
  const prefix = opts.cookiePrefix ?? 'techaro.lol-anubis'
  const authName = `${prefix}-auth`
  const testName = `${prefix}-cookie-verification`
  const extra = opts.extraCookies ?? []
  const basePrefix = opts.basePrefix ?? ''
  const ttl = opts.authTtlSeconds ?? 7 * 24 * 3600
  const secret = randomBytes(32)
  const issued = new Map<string, Issued>()
  let difficulty = opts.difficulty
  const hard = opts.unsolvableBelow ? hardData(opts.difficulty, opts.unsolvableBelow) : undefined
  const stats: AnubisStats = { challenges: 0, passes: 0, refused: [], served: 0 }

  const clear = (name: string) => `${name}=; Path=/; Max-Age=0; Expires=Thu, 01 Jan 1970 00:00:00 GMT; SameSite=Lax`
  const expires = (seconds: number) => new Date(Date.now() + seconds * 1000).toUTCString()

  function challengePage(req: IncomingMessage, res: ServerResponse) {
    const id = randomUUID()
    const chall: Issued = { randomData: hard ?? randomBytes(64).toString('hex'), difficulty, issuedAt: Date.now(), spent: false, extra: {} }
    for (const name of extra) chall.extra[name] = randomBytes(12).toString('hex')
    issued.set(id, chall)
    stats.challenges++
    const json = {
      rules: { algorithm: opts.algorithm ?? 'fast', difficulty },
      challenge: {
        issuedAt: new Date(chall.issuedAt).toISOString(),
        metadata: { 'User-Agent': String(req.headers['user-agent'] ?? ''), 'X-Real-Ip': '' },
        id,
        method: opts.algorithm ?? 'fast',
        randomData: chall.randomData,
        difficulty,
        spent: false,
      },
    }
    const html = `<!doctype html><html lang="en"><head><title>Making sure you&#39;re not a bot!</title>
<meta name="robots" content="noindex,nofollow">
<script id="anubis_version" type="application/json">"v1.22.0"</script>
<script id="anubis_challenge" type="application/json">${scriptJson(json)}</script>
<script id="anubis_base_prefix" type="application/json">${scriptJson(basePrefix)}</script>
<script id="anubis_public_url" type="application/json">""</script>
</head><body id="top"><main><h1 id="title" class="centered-div">Making sure you&#39;re not a bot!</h1>
<div class="centered-div"><p id="status">Loading...</p>
<script id="anubis-main" defer type="module" src="${basePrefix}/.within.website/x/cmd/anubis/static/js/main.mjs"></script>
<div id="progress" role="progressbar" aria-labelledby="status"><div class="bar-inner"></div></div></div>
<footer><p>Protected by <a href="https://github.com/TecharoHQ/anubis">Anubis</a>.</p></footer></main></body></html>`
    const cookies = [`${testName}=${id}; Path=/; Expires=${expires(30 * 60)}; SameSite=Lax`]
    for (const [name, value] of Object.entries(chall.extra)) cookies.push(`${name}=${value}; Path=/; SameSite=Lax`)
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store', 'set-cookie': cookies }).end(html)
  }

  function refuse(res: ServerResponse, status: number, why: string, clearTest = false) {
    stats.refused.push(why)
    const cookies = [clear(authName)]
    if (clearTest) cookies.push(clear(testName))
    res.writeHead(status, { 'content-type': 'text/html; charset=utf-8', 'set-cookie': cookies }).end(`<html><body><p>${why}</p></body></html>`)
  }

  function passChallenge(req: IncomingMessage, res: ServerResponse) {
    const q = new URL(req.url ?? '/', 'http://anubis.invalid').searchParams
    const redir = q.get('redir') ?? ''
    let target: URL
    try {
      target = new URL(redir, 'http://anubis.invalid')
    } catch {
      return refuse(res, 400, 'invalid redirect')
    }
    const host = String(req.headers['x-forwarded-host'] ?? req.headers.host ?? '')
    if (!/^\//.test(redir) && target.host !== host) return refuse(res, 400, 'redirect domain not allowed')
    const cookies = parseCookies(req.headers.cookie)
    if (!cookies[testName]) return refuse(res, 500, 'cookies disabled: no verification cookie', true)
    const id = q.get('id') ?? ''
    const chall = issued.get(id)
    if (!chall || Date.now() - chall.issuedAt > 30 * 60 * 1000) return refuse(res, 500, 'unknown challenge')
    for (const [name, value] of Object.entries(chall.extra)) {
      if (cookies[name] !== value) return refuse(res, 500, `missing cookie ${name}`)
    }
    if (chall.spent) return refuse(res, 500, 'double spend prevented')
    const nonce = q.get('nonce') ?? ''
    if (!/^-?\d+$/.test(nonce)) return refuse(res, 500, 'invalid nonce')
    if (!Number.isFinite(Number.parseFloat(q.get('elapsedTime') ?? ''))) return refuse(res, 500, 'invalid elapsedTime')
    const response = q.get('response') ?? ''
    const want = createHash('sha256')
      .update(chall.randomData + nonce)
      .digest('hex')
    if (response.length !== want.length || !timingSafeEqual(Buffer.from(response), Buffer.from(want))) return refuse(res, 403, 'wrong response')
    if (!response.startsWith('0'.repeat(chall.difficulty))) return refuse(res, 403, 'not enough leading zeros')
    chall.spent = true
    stats.passes++
    const token = signToken(secret, { challenge: id, exp: Math.floor(Date.now() / 1000) + ttl })
    res
      .writeHead(302, {
        location: redir,
        'content-type': 'text/html; charset=utf-8',
        'set-cookie': [`${authName}=${token}; Path=/; Expires=${expires(ttl)}; SameSite=Lax`],
      })
      .end(`<a href="${redir.replace(/"/g, '&quot;')}">Found</a>.`)
  }

  const gated = opts.gated ?? (() => true)
  const handler: Handler = (req, res) => {
    const path = new URL(req.url ?? '/', 'http://anubis.invalid').pathname
    if (path === basePrefix + PASS_PATH) return passChallenge(req, res)
    if (!gated(req) || verifyToken(secret, parseCookies(req.headers.cookie)[authName])) {
      if (gated(req)) stats.served++
      return pages(req, res)
    }
    // A gated request's body (a form POST) is read and dropped, as the gate never passes it on.
    req.resume()
    challengePage(req, res)
  }
  return {
    handler,
    stats,
    setDifficulty: (d) => {
      difficulty = d
    },
  }
}
