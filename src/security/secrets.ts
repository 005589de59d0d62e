import { createHash, hash, randomBytes, scrypt, timingSafeEqual } from 'node:crypto'
import { promisify } from 'node:util'

export const KEY_PREFIX = 'trawl_live_'
const KEY_SECRET_BYTES = 24 // 192 bits, base64url: 32 characters
const KEY_PATTERN = /^trawl_live_[A-Za-z0-9_-]{32}$/

/** A new API key: the secret is returned once; only its SHA-256 is stored. */
export function newApiKey() {
  const secret = KEY_PREFIX + randomBytes(KEY_SECRET_BYTES).toString('base64url')
  return { secret, hash: sha256(secret), prefix: secret.slice(0, KEY_PREFIX.length + 6) }
}

export const looksLikeApiKey = (s: string) => KEY_PATTERN.test(s)

export const WEBHOOK_SECRET_PREFIX = 'whsec_'

/**
 * `whsec_` + standard (padded) base64 of 32 random bytes: the Standard Webhooks secret format, so
 * receivers using a Standard Webhooks library verify `webhook-signature` with the secret as shown.
 */
export function newWebhookSecret() {
  return `${WEBHOOK_SECRET_PREFIX}${randomBytes(32).toString('base64')}`
}

export function sha256(text: string): string {
  // One-shot: no Hash object (an API key is hashed on every request).
  return hash('sha256', text, 'hex')
}

/** Constant-time equality of two strings of any length (compares their digests). */
export function safeEqual(a: string, b: string): boolean {
  return timingSafeEqual(createHash('sha256').update(a).digest(), createHash('sha256').update(b).digest())
}

const scryptAsync = promisify(scrypt) as (pw: string, salt: Buffer, len: number, opts: object) => Promise<Buffer>
/** OWASP's scrypt settings of 2023 (N=2^15, r=8, p=3: 32 MiB, about 250 ms here); hashes made with others are redone at sign-in. */
const SCRYPT = { N: 32768, r: 8, p: 3, maxmem: 64 * 1024 * 1024 }

/** scrypt (a memory-hard KDF in Node's own crypto) so no native addon is needed for passwords. */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16)
  const hash = await scryptAsync(password, salt, 32, SCRYPT)
  return `scrypt$${SCRYPT.N}$${SCRYPT.r}$${SCRYPT.p}$${salt.toString('base64')}$${hash.toString('base64')}`
}

/**
 * A hash in the format and with the cost of hashPassword's, of no password: its salt and digest
 * are random bytes, so no password matches it. Sign-in checks unknown emails against it
 * (sessions.service.ts), doing the same work as for a real account.
 */
export const DUMMY_PASSWORD_HASH = `scrypt$${SCRYPT.N}$${SCRYPT.r}$${SCRYPT.p}$${randomBytes(16).toString('base64')}$${randomBytes(32).toString('base64')}`

/** Whether a stored hash was made with other settings than today's (an older, cheaper one): sign-in makes it again. */
export function needsRehash(stored: string): boolean {
  return !stored.startsWith(`scrypt$${SCRYPT.N}$${SCRYPT.r}$${SCRYPT.p}$`)
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, hash] = stored.split('$')
  if (scheme !== 'scrypt' || !salt || !hash) return false
  const expected = Buffer.from(hash, 'base64')
  const actual = await scryptAsync(password, Buffer.from(salt, 'base64'), expected.length, {
    N: Number(n),
    r: Number(r),
    p: Number(p),
    maxmem: SCRYPT.maxmem,
  })
  return timingSafeEqual(actual, expected)
}
