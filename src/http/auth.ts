import type { FastifyRequest } from 'fastify'
import { rateLimitFor } from '../billing/plans.ts'
import { ApiError } from '../errors.ts'
import { looksLikeApiKey, safeEqual, sha256 } from '../security/secrets.ts'
import type { Signals } from '../signals/signals.ts'

/** Who is calling: resolved from the API key on every authenticated request. */
export interface AuthContext {
  keyId: string
  accountId: string
  userId: string
  plan: string
  rps: number
  keyLimitMc: number | null
  allowFallback: boolean
}

interface Cached {
  auth: AuthContext | null // null: revoked
  hash: string
  expiresAt: number
  lastTouched: number
}

/** A stored key with the account fields every request needs, as the key lookup returns it. */
export interface KeyRecord {
  id: string
  account_id: string
  user_id: string
  secret_hash: string
  credit_limit_mc: number | null
  allow_fallback: number
  last_used_at: number | null
  revoked_at: number | null
  plan: string
  rate_limit_rps: number | null
}

/**
 * Where keys are stored: the accounts feature supplies it from the composition root (services.ts),
 * so that this floor imports no feature.
 */
export interface KeyLookup {
  byHash(secretHash: string): Promise<KeyRecord | undefined>
  /** Records a use; writes at most once a minute per key (usage stats only). */
  touch(keyId: string, now: number): Promise<unknown>
}

/** The 401 for a well-formed key that no row holds (app.ts logs a hint for it). */
export const UNKNOWN_KEY = 'invalid API key'

/**
 * Validated keys are cached for `ttlMs` (at most a minute: TRAWL_KEY_CACHE_MS). Rotation and
 * revocation drop the entry at once here and, through `signals`, in every other process; the TTL
 * bounds how long a lost signal can leave a stale entry.
 */
export class KeyCache {
  private byHash = new Map<string, Cached>()
  private pending = new Map<string, { generation: number; row: Promise<KeyRecord | undefined> }>()
  // Bumped by every drop: a lookup that raced a drop (it read the row before the change) is not cached.
  private generation = 0

  constructor(
    private keys: KeyLookup,
    private ttlMs: number,
    private signals?: Signals,
  ) {
    signals?.on('key-changed', (s) => this.dropKey(s.keyId))
    signals?.on('account-keys-changed', (s) => this.dropAccount(s.accountId))
  }

  async resolve(secret: string): Promise<AuthContext> {
    if (!looksLikeApiKey(secret)) throw new ApiError('unauthorized', 'malformed API key: keys look like trawl_live_ followed by 32 characters')
    const hash = sha256(secret)
    const now = Date.now()
    let entry = this.byHash.get(hash)
    if (!entry || entry.expiresAt <= now) {
      const generation = this.generation
      const row = await this.lookUp(hash)
      // The index lookup found the row by hash; compare again in constant time so no code path
      // ever branches on a partial match of secret material.
      if (!row || !safeEqual(row.secret_hash, hash)) {
        this.byHash.delete(hash)
        throw new ApiError('unauthorized', UNKNOWN_KEY)
      }
      entry = { hash, expiresAt: now + this.ttlMs, lastTouched: row.last_used_at ?? 0, auth: row.revoked_at != null ? null : authOf(row) }
      if (this.ttlMs > 0 && generation === this.generation) this.byHash.set(hash, entry)
    }
    if (!entry.auth) throw new ApiError('unauthorized', 'API key was revoked')
    if (now - entry.lastTouched >= 60_000) {
      entry.lastTouched = now
      void this.keys.touch(entry.auth.keyId, now).catch(() => {}) // best effort: usage stats only
    }
    return entry.auth
  }

  /** Forget a key at once, in every process (rotate, revoke, limit change). */
  invalidate(keyId: string) {
    if (this.signals) void this.signals.publish({ type: 'key-changed', keyId })
    else this.dropKey(keyId)
  }

  /** Forget every key of an account, in every process (plan or rate change). */
  invalidateAccount(accountId: string) {
    if (this.signals) void this.signals.publish({ type: 'account-keys-changed', accountId })
    else this.dropAccount(accountId)
  }

  /** One query per key however many of its calls arrive at once (a burst on a cold cache); never one that started before a drop. */
  private lookUp(hash: string) {
    const joined = this.pending.get(hash)
    if (joined && joined.generation === this.generation) return joined.row
    const row = this.keys.byHash(hash).finally(() => {
      if (this.pending.get(hash)?.row === row) this.pending.delete(hash)
    })
    this.pending.set(hash, { generation: this.generation, row })
    return row
  }

  private dropKey(keyId: string) {
    this.generation++
    for (const [hash, entry] of this.byHash) if (entry.auth?.keyId === keyId || !entry.auth) this.byHash.delete(hash)
  }

  private dropAccount(accountId: string) {
    this.generation++
    for (const [hash, entry] of this.byHash) if (entry.auth?.accountId === accountId) this.byHash.delete(hash)
  }
}

/** The caller a stored key stands for, with its plan's rate limit. */
export const authOf = (row: KeyRecord): AuthContext => ({
  keyId: row.id,
  accountId: row.account_id,
  userId: row.user_id,
  plan: row.plan,
  rps: rateLimitFor(row.plan, row.rate_limit_rps),
  keyLimitMc: row.credit_limit_mc,
  allowFallback: row.allow_fallback === 1,
})

/**
 * Where a vendor-compatible route's clients send the key besides `Authorization: Bearer`
 * (src/features/compat): a header such as X-API-KEY, or a string field of the JSON body such as api_key.
 */
export interface KeySources {
  /** Lower-case header name carrying the bare key. */
  header?: string
  /** Top-level string field of the JSON body carrying the key. */
  bodyField?: string
  /** Query-string parameter carrying the key (Serper's `apiKey`). */
  queryParam?: string
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Vendor-compatible routes: other places their clients send the key (KeySources). */
    keyFrom?: KeySources
  }
}

/** Where a key may arrive: the Authorization header, `?api_key=` on GET, `?key=` on /customsearch/v1; plus a compatible route's `keyFrom`. */
export function keyFromRequest(req: FastifyRequest, opts: { allowKeyParam?: boolean; from?: KeySources } = {}): string {
  const header = req.headers.authorization
  if (header) {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header)
    if (!match?.[1]) throw new ApiError('unauthorized', 'malformed Authorization header: use Authorization: Bearer <API key>')
    return match[1]
  }
  const vendorKey = keyFromVendorPlace(req, opts.from)
  if (vendorKey !== undefined) return vendorKey
  const query = (req.query ?? {}) as Record<string, unknown>
  if ((req.method === 'GET' || req.method === 'HEAD') && typeof query.api_key === 'string') return query.api_key
  if (opts.allowKeyParam && typeof query.key === 'string') return query.key
  if (req.method !== 'GET' && (typeof query.api_key === 'string' || typeof query.key === 'string')) {
    throw new ApiError('unauthorized', 'api_key in the query string is accepted on GET only; send Authorization: Bearer <API key>')
  }
  throw new ApiError('unauthorized', 'missing API key: send Authorization: Bearer <API key>')
}

function keyFromVendorPlace(req: FastifyRequest, from: KeySources | undefined): string | undefined {
  if (from?.header) {
    const value = req.headers[from.header]
    if (typeof value === 'string' && value.trim()) return value.trim()
  }
  if (from?.queryParam) {
    const value = (req.query as Record<string, unknown> | undefined)?.[from.queryParam]
    if (typeof value === 'string' && value.trim()) return value.trim()
  }
  if (from?.bodyField) {
    const body = req.body as Record<string, unknown> | null | undefined
    const value = body && typeof body === 'object' && !Array.isArray(body) ? body[from.bodyField] : undefined
    if (typeof value === 'string' && value.trim()) return value.trim()
  }
  return undefined
}
