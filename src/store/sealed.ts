import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto'
import type { Store } from './database.ts'
import { serverSecret } from './server-secrets.store.ts'

/**
 * Values kept encrypted at rest (docs/operations.md, "Data at rest"): AES-256-GCM under a key per
 * purpose, derived with HKDF-SHA256 from the installation's `storage_key` server secret (one row of
 * server_secrets, shared by every process on the database). The row's owner (an account id) is bound
 * as associated data, so a sealed value copied onto another row does not open. Stored as
 * `enc:v1:` + base64url(12-byte IV, 16-byte tag, ciphertext). A value without that prefix was
 * stored in clear by an earlier version and is read as it is.
 */
const SEALED = 'enc:v1:'
const IV_BYTES = 12
const TAG_BYTES = 16

/** By the store's Kysely instance: wrappers of one store (tests pause its transactions) share it. */
const secrets = new WeakMap<object, Promise<string>>()

/**
 * Reads (or makes, on first use) the storage secret once per process. openStore calls it before
 * anything runs: read later inside a caller's SQLite transaction, it would wait for the one
 * connection that transaction holds.
 */
export function loadStorageSecret(store: Store): Promise<string> {
  let secret = secrets.get(store.db)
  if (!secret) {
    secret = serverSecret(store, 'storage_key')
    // A failed read (the database briefly down) is tried again by the next caller.
    secret.catch(() => secrets.delete(store.db))
    secrets.set(store.db, secret)
  }
  return secret
}

async function keyFor(store: Store, purpose: string): Promise<Buffer> {
  return Buffer.from(hkdfSync('sha256', await loadStorageSecret(store), 'trawl', `trawl at rest: ${purpose} v1`, 32))
}

export const isSealed = (stored: string) => stored.startsWith(SEALED)

export async function seal(store: Store, purpose: string, plain: string, owner: string): Promise<string> {
  const iv = randomBytes(IV_BYTES)
  const cipher = createCipheriv('aes-256-gcm', await keyFor(store, purpose), iv)
  cipher.setAAD(Buffer.from(owner, 'utf8'))
  const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()])
  return SEALED + Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url')
}

/** The clear value of a sealed one; a value stored in clear (an older version's) as it is. */
export async function unseal(store: Store, purpose: string, stored: string, owner: string): Promise<string> {
  if (!isSealed(stored)) return stored
  const raw = Buffer.from(stored.slice(SEALED.length), 'base64url')
  const decipher = createDecipheriv('aes-256-gcm', await keyFor(store, purpose), raw.subarray(0, IV_BYTES))
  decipher.setAAD(Buffer.from(owner, 'utf8'))
  decipher.setAuthTag(raw.subarray(IV_BYTES, IV_BYTES + TAG_BYTES))
  return Buffer.concat([decipher.update(raw.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8')
}
