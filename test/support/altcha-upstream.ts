import { createHash, createHmac, pbkdf2Sync, randomBytes, randomInt, timingSafeEqual } from 'node:crypto'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { parseCookies, signToken, verifyToken } from './anubis-upstream.ts'

/**
 * Mojeek's Altcha gate (searxng/searxng PR #6696) in front of a fake engine's pages, working as
 * altcha-lib does, not from recorded pages:
 *
 * - a gated request without a valid pass cookie gets the challenge page: 200, 0 results, the
 *   `<altcha-widget>` in a form posting to /captcha/verify (the markup is this test's own: the real
 *   page's is not public);
 * - GET /captcha/challenge: a fresh challenge. v2 (default) as altcha-lib 2's createChallenge in
 *   its deterministic mode: random nonce and salt, a secret counter below `maxCounter`, keyPrefix
 *   = the first keyLength/2 bytes of PBKDF2(nonce ‖ uint32be(counter), salt, cost, keyLength),
 *   expiresAt, and an HMAC-SHA256 signature over the sorted parameters' JSON. v1 as altcha-lib's
 *   v1: salt with `?expires=`, challenge = hex(SHA-256(salt + number)), signature = HMAC(challenge);
 * - POST /captcha/verify, multipart (or urlencoded) field `altcha`: the base64 JSON payload is
 *   checked as verifySolution does (expiry, signature, the key derived again from the counter),
 *   a payload is taken once (replay refused), and the answer sets the `chllg` pass cookie, a
 *   signed token that expires.
 */

type Handler = (req: IncomingMessage, res: ServerResponse) => void

export interface AltchaUpstreamOptions {
  version?: 1 | 2
  /** v2 key derivation (PBKDF2/SHA-256 by default, as Mojeek's). */
  algorithm?: 'PBKDF2/SHA-256' | 'PBKDF2/SHA-384' | 'PBKDF2/SHA-512'
  /** v2 PBKDF2 iterations. */
  cost?: number
  /** v2: the secret counter is drawn from [minCounter, maxCounter); v1: the number from [minCounter, maxCounter]. */
  maxCounter?: number
  /** altcha-lib's README draws the counter from [5000, 10000): no solve can stop early. */
  minCounter?: number
  keyLength?: number
  /** The pass cookie (Mojeek's is `chllg`). */
  cookieName?: string
  cookieTtlSeconds?: number
  /** Which requests the gate stands before (default: /search). */
  gated?: (req: IncomingMessage) => boolean
  /** Verifies payloads and sets the cookie, but keeps answering the challenge page (a pass bound to something else). */
  ignorePasses?: boolean
}

export interface AltchaStats {
  /** Challenge pages served (0 results). */
  pages: number
  /** Challenges handed out by /captcha/challenge. */
  challenges: number
  /** Payloads accepted (pass cookies issued). */
  verified: number
  /** Payloads refused, with why. */
  refused: string[]
  /** Gated requests let through with a valid pass cookie. */
  served: number
}

export interface AltchaUpstream {
  handler: Handler
  stats: AltchaStats
  /** Changes the next challenges' work. */
  configure(next: Partial<Pick<AltchaUpstreamOptions, 'cost' | 'minCounter' | 'maxCounter' | 'version'>>): void
}

const DIGEST: Record<string, string> = { 'PBKDF2/SHA-256': 'sha256', 'PBKDF2/SHA-384': 'sha384', 'PBKDF2/SHA-512': 'sha512' }

/** Keys sorted at every level, as altcha-lib's canonicalJSON. */
function sortKeys(value: unknown): unknown {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return value
  const out: Record<string, unknown> = {}
  for (const key of Object.keys(value).sort()) {
    const v = (value as Record<string, unknown>)[key]
    if (v !== undefined) out[key] = sortKeys(v)
  }
  return out
}

function deriveV2(params: Record<string, unknown>, counter: number): Buffer {
  const nonce = Buffer.from(String(params.nonce), 'hex')
  const password = Buffer.alloc(nonce.length + 4)
  nonce.copy(password)
  password.writeUInt32BE(counter, nonce.length)
  return pbkdf2Sync(
    password,
    Buffer.from(String(params.salt), 'hex'),
    Number(params.cost),
    Number(params.keyLength),
    DIGEST[String(params.algorithm)] ?? 'sha256',
  )
}

const sameHex = (a: string, b: string) => a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b))

/** The named field of a multipart/form-data or urlencoded body. */
export function formField(contentType: string | undefined, body: Buffer, name: string): string | undefined {
  const type = contentType ?? ''
  const boundary = /boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(type)
  if (/^multipart\/form-data/i.test(type) && boundary) {
    const marker = `--${boundary[1] ?? boundary[2]}`
    for (const part of body.toString('latin1').split(marker)) {
      const split = part.indexOf('\r\n\r\n')
      if (split < 0) continue
      const head = part.slice(0, split)
      const field = /name="([^"]*)"/i.exec(head)?.[1]
      if (field === name) return Buffer.from(part.slice(split + 4).replace(/\r\n$/, ''), 'latin1').toString('utf8')
    }
    return undefined
  }
  if (/^application\/x-www-form-urlencoded/i.test(type)) return new URLSearchParams(body.toString('utf8')).get(name) ?? undefined
  return undefined
}

export function challengePageHtml(query: string): string {
  const q = query.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;')
  return `<!doctype html><html lang="en"><head><meta charset="UTF-8"><title>${q} - Mojeek Search</title>
<script type="module" src="/js/altcha.min.js" async defer></script></head>
<body class="serp-grid"><div class="header"><form method="get" action="/search" name="sf1"><input type="text" name="q" value="${q}"></form></div>
<div class="results"><div class="captcha-wrap"><p>Please confirm that you are not a robot to see results.</p>
<form action="/captcha/verify" method="post" enctype="multipart/form-data" id="captcha-form">
<input type="hidden" name="return" value="/search?q=${encodeURIComponent(query)}">
<altcha-widget challengeurl="/captcha/challenge" auto="onload" hidefooter></altcha-widget>
<noscript><p>JavaScript is required.</p></noscript>
</form></div></div></body></html>`
}

export function altchaUpstream(pages: Handler, opts: AltchaUpstreamOptions = {}): AltchaUpstream {
  const settings = { version: opts.version ?? 2, cost: opts.cost ?? 1000, minCounter: opts.minCounter ?? 0, maxCounter: opts.maxCounter ?? 100 }
  const algorithm = opts.algorithm ?? 'PBKDF2/SHA-256'
  const keyLength = opts.keyLength ?? 32
  const cookieName = opts.cookieName ?? 'chllg'
  const ttl = opts.cookieTtlSeconds ?? 30 * 24 * 3600
  const hmacSecret = randomBytes(32)
  const cookieSecret = randomBytes(32)
  const spent = new Set<string>()
  const stats: AltchaStats = { pages: 0, challenges: 0, verified: 0, refused: [], served: 0 }
  const hmacHex = (data: string) => createHmac('sha256', hmacSecret).update(data).digest('hex')
  const json = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string | string[]> = {}) =>
    res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store', ...headers }).end(JSON.stringify(body))

  function challenge(res: ServerResponse) {
    stats.challenges++
    const expiresAt = Math.floor(Date.now() / 1000) + 600
    if (settings.version === 1) {
      const salt = `${randomBytes(12).toString('hex')}?expires=${expiresAt}`
      const number = randomInt(settings.minCounter, settings.maxCounter + 1)
      const hash = createHash('sha256')
        .update(salt + number)
        .digest('hex')
      return json(res, 200, { algorithm: 'SHA-256', challenge: hash, maxnumber: settings.maxCounter, salt, signature: hmacHex(hash) })
    }
    const params: Record<string, unknown> = {
      algorithm,
      cost: settings.cost,
      expiresAt,
      keyLength,
      keyPrefix: '',
      nonce: randomBytes(16).toString('hex'),
      salt: randomBytes(16).toString('hex'),
    }
    params.keyPrefix = deriveV2(params, randomInt(settings.minCounter, settings.maxCounter))
      .subarray(0, keyLength / 2)
      .toString('hex')
    const parameters = sortKeys(params)
    return json(res, 200, { parameters, signature: hmacHex(JSON.stringify(parameters)) })
  }

  /** Why the payload is refused, or null when it is a solved, signed, fresh challenge. */
  function check(payload: string): string | null {
    let p: Record<string, any>
    try {
      p = JSON.parse(Buffer.from(payload, 'base64').toString('utf8'))
    } catch {
      return 'payload is not base64 JSON'
    }
    if (p.challenge && typeof p.challenge === 'object') {
      const params = p.challenge.parameters as Record<string, unknown> | undefined
      const solution = p.solution as { counter?: unknown; derivedKey?: unknown } | undefined
      if (!params || !solution) return 'payload without parameters or solution'
      if (typeof params.expiresAt === 'number' && params.expiresAt < Date.now() / 1000) return 'challenge expired'
      const signature = String(p.challenge.signature ?? '')
      if (!sameHex(signature, hmacHex(JSON.stringify(sortKeys(params))))) return 'invalid signature'
      if (spent.has(signature)) return 'payload already used'
      if (!Number.isInteger(solution.counter) || (solution.counter as number) < 0) return 'invalid counter'
      const key = deriveV2(params, solution.counter as number).toString('hex')
      if (!sameHex(key, String(solution.derivedKey ?? '')) || !key.startsWith(String(params.keyPrefix))) return 'invalid solution'
      spent.add(signature)
      return null
    }
    const { challenge: hash, number, salt, signature } = p as { challenge?: string; number?: number; salt?: string; signature?: string }
    if (typeof hash !== 'string' || typeof salt !== 'string' || typeof signature !== 'string') return 'payload without v1 fields'
    const expires = Number(new URLSearchParams(salt.split('?')[1] ?? '').get('expires'))
    if (expires && expires < Date.now() / 1000) return 'challenge expired'
    if (!sameHex(signature, hmacHex(hash))) return 'invalid signature'
    if (spent.has(signature)) return 'payload already used'
    if (
      !sameHex(
        createHash('sha256')
          .update(salt + number)
          .digest('hex'),
        hash,
      )
    )
      return 'invalid solution'
    spent.add(signature)
    return null
  }

  async function verify(req: IncomingMessage, res: ServerResponse) {
    const chunks: Buffer[] = []
    for await (const chunk of req) chunks.push(chunk as Buffer)
    const payload = formField(req.headers['content-type'], Buffer.concat(chunks), 'altcha')
    const why = payload ? check(payload) : 'no altcha field'
    if (why) {
      stats.refused.push(why)
      return json(res, 400, { ok: false, verified: false, error: why })
    }
    stats.verified++
    const token = signToken(cookieSecret, { exp: Math.floor(Date.now() / 1000) + ttl })
    return json(res, 200, { ok: true, verified: true }, { 'set-cookie': [`${cookieName}=${token}; Path=/; Max-Age=${ttl}; SameSite=Lax; HttpOnly`] })
  }

  const gated = opts.gated ?? ((req: IncomingMessage) => new URL(req.url ?? '/', 'http://mojeek.invalid').pathname === '/search')
  const handler: Handler = (req, res) => {
    const url = new URL(req.url ?? '/', 'http://mojeek.invalid')
    if (url.pathname === '/captcha/challenge' && req.method === 'GET') return challenge(res)
    if (url.pathname === '/captcha/verify' && req.method === 'POST') {
      verify(req, res).catch(() => res.writeHead(500).end())
      return
    }
    if (!gated(req)) return pages(req, res)
    if (!opts.ignorePasses && verifyToken(cookieSecret, parseCookies(req.headers.cookie)[cookieName])) {
      stats.served++
      return pages(req, res)
    }
    stats.pages++
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(challengePageHtml(url.searchParams.get('q') ?? ''))
  }
  return {
    handler,
    stats,
    configure: (next) => Object.assign(settings, next),
  }
}
