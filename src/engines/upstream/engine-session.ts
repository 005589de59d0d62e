import { createHash } from 'node:crypto'
import { Cookie, CookieJar } from 'tough-cookie'
import { siteOf } from './upstream-route.ts'

/**
 * What a browser keeps between two searches on one engine: its cookies. One jar per engine site
 * and way out (direct, or one proxy: a pass earned from one address may be bound to it), so the
 * cookies an engine sets (Brave's on its first 429, a proof-of-work pass, consent) go back with
 * the next request as a browser would send them, together with the same User-Agent and TLS
 * profile the engine's request builder chose (browser-headers.ts): identity and cookies travel
 * as one. tough-cookie applies the RFC 6265 rules (domain, path, Secure, expiry) on the engine's
 * own URL, never the mapped test address.
 *
 * Cookies earned by passing a gate are also written to the shared pass store (when the
 * deployment gives one), so the deployment's other processes pick them up instead of solving
 * the same challenge again.
 */

/** Earned cookies shared across processes (gates/gate-pass.store.ts over the database). */
export interface PassStore {
  load(key: string): Promise<{ cookies: string; updatedAt: number } | null>
  save(key: string, cookies: string, expiresAt: number): Promise<void>
}

interface Session {
  jar: CookieJar
  /** When the shared store was last read for this session (0: never). */
  syncedAt: number
  /** The stored pass's own time, so a newer one written by another process is noticed. */
  passAt: number
}

/** How long a process trusts its own copy before looking at the shared store again. */
const RESYNC_MS = 30_000
/** Sessions kept; the least recently used goes first (each holds a few cookies). */
const MAX_SESSIONS = 256

export class EngineSessions {
  private readonly sessions = new Map<string, Session>()

  constructor(
    private readonly passes?: PassStore,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * The session of `url`'s site reached through `way` (a proxy URL, or null for direct) as the
   * client `userAgent` names: cookies one identity earned never go out with another's User-Agent
   * (Google's feature-phone route and its Chrome routes keep apart).
   */
  key(url: URL, way: string | null, userAgent: string | undefined): string {
    const who = userAgent ? createHash('sha256').update(userAgent).digest('base64url').slice(0, 12) : 'none'
    return `${siteOf(url.hostname)}|${way ? new URL(way).host : 'direct'}|${who}`
  }

  private session(key: string): Session {
    let s = this.sessions.get(key)
    if (s) {
      this.sessions.delete(key)
    } else {
      s = { jar: new CookieJar(undefined, { looseMode: true }), syncedAt: 0, passAt: 0 }
      if (this.sessions.size >= MAX_SESSIONS) this.sessions.delete(this.sessions.keys().next().value as string)
    }
    this.sessions.set(key, s)
    return s
  }

  /**
   * The Cookie header for a request to `url`: the engine's own cookies (its settings: they say
   * what this request wants) first, then the session's, a name the engine set winning.
   */
  cookieHeader(key: string, url: URL, own: string | undefined): string | undefined {
    const kept = this.session(key).jar.getCookiesSync(url.href)
    const ownNames = new Set((own ?? '').split(';').map((c) => c.split('=')[0]?.trim()))
    const extra = kept.filter((c) => !ownNames.has(c.key)).map((c) => c.cookieString())
    const all = [own?.trim(), ...extra].filter((c): c is string => Boolean(c))
    return all.length > 0 ? all.join('; ') : undefined
  }

  /** Keeps what an answer's Set-Cookie headers set; true when anything was set. */
  remember(key: string, url: URL, setCookie: string | string[] | undefined): boolean {
    const list = setCookie === undefined ? [] : Array.isArray(setCookie) ? setCookie : [setCookie]
    const jar = this.session(key).jar
    let set = false
    for (const line of list) {
      if (jar.setCookieSync(line, url.href, { ignoreError: true })) set = true
    }
    return set
  }

  /** Sets one cookie as a page's script would (`name=value; path=/`). */
  setCookie(key: string, url: URL, cookie: string): void {
    this.session(key).jar.setCookieSync(cookie, url.href, { ignoreError: true })
  }

  /**
   * Forgets a session's cookies (the engine refused them: the next request starts afresh). The
   * shared pass they came from is not taken again; only a newer one is.
   */
  forget(key: string): void {
    const s = this.session(key)
    s.jar = new CookieJar(undefined, { looseMode: true })
  }

  /**
   * Reads the shared store when this process has not looked for a while (or `force`): true when
   * it brought a pass this process did not have.
   */
  async sync(key: string, force = false): Promise<boolean> {
    if (!this.passes) return false
    const s = this.session(key)
    if (!force && this.now() - s.syncedAt < RESYNC_MS) return false
    s.syncedAt = this.now()
    const stored = await this.passes.load(key).catch(() => null)
    if (!stored || stored.updatedAt <= s.passAt) return false
    let cookies: unknown[]
    try {
      cookies = (JSON.parse(stored.cookies) as { cookies?: unknown[] }).cookies ?? []
    } catch {
      return false
    }
    // Merged over this process's own: the stored pass's cookies win.
    for (const json of cookies) {
      const cookie = Cookie.fromJSON(json)
      if (!cookie?.domain) continue
      s.jar.setCookieSync(cookie, `https://${cookie.domain.replace(/^\./, '')}${cookie.path ?? '/'}`, { ignoreError: true })
    }
    s.passAt = stored.updatedAt
    return true
  }

  /** Writes the session's cookies to the shared store after a pass was earned. */
  async share(key: string): Promise<void> {
    if (!this.passes) return
    const s = this.session(key)
    const serialized = s.jar.serializeSync()
    if (!serialized) return
    const expiries = serialized.cookies.map((json) => Cookie.fromJSON(json)?.expiryTime()).filter((t): t is number => t !== undefined && Number.isFinite(t))
    // Session cookies (no expiry) are kept for a day, as a browser left open would.
    const expiresAt = expiries.length > 0 ? Math.max(...expiries) : this.now() + 86_400_000
    s.passAt = this.now()
    s.syncedAt = this.now()
    await this.passes.save(key, JSON.stringify(serialized), expiresAt).catch(() => {})
  }
}
