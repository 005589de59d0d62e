// One proof-of-work solve (pow.ts starts a thread per solve and ends it at the time cap). Plain
// CommonJS on node:crypto only, so it runs the same from the sources and beside the bundle. The
// job arrives as workerData (gate.types.ts PowJob); the answer is one message:
// { nonce, hash, ms } or { error }. Synchronous hashing in a tight loop: this thread has nothing
// else to do, and the event loop of the server never sees it.
const crypto = require('node:crypto')
const { parentPort, workerData } = require('node:worker_threads')

const DIGESTS = { 'SHA-256': 'sha256', 'SHA-384': 'sha384', 'SHA-512': 'sha512' }
const UINT32_MAX = 0xffffffff

/**
 * Anubis ("fast" and "slow" alike): the first nonce, counted from 0, whose SHA-256 over the
 * challenge string followed by the nonce in decimal starts with `difficulty` hex zeros (the
 * challenge is ASCII hex: string concatenation and UTF-8 are the bytes Anubis hashes).
 */
function sha256Prefix(job) {
  const difficulty = job.difficulty
  const zeroBytes = Math.floor(difficulty / 2)
  const oddNibble = difficulty % 2 === 1
  const sum = digestOf('sha256', job.challenge)
  for (let nonce = 0; nonce <= Number.MAX_SAFE_INTEGER; nonce++) {
    const digest = sum(nonce)
    let ok = true
    for (let i = 0; i < zeroBytes; i++) {
      if (digest[i] !== 0) {
        ok = false
        break
      }
    }
    if (ok && oddNibble && digest[zeroBytes] >> 4 !== 0) ok = false
    if (ok) return { nonce, hash: digest.toString('hex') }
  }
  throw new Error('no nonce found')
}

/**
 * n → H(prefix + n) as a Buffer. crypto.hash (Node 20.12+), one call per sum, is the fastest;
 * else a copy of the hash state after the prefix.
 */
function digestOf(algorithm, prefix) {
  if (typeof crypto.hash === 'function') return (n) => crypto.hash(algorithm, prefix + n, 'buffer')
  const base = crypto.createHash(algorithm).update(prefix, 'utf8')
  return (n) => base.copy().update(String(n), 'utf8').digest()
}

/** Altcha v1: the number n in [0, maxNumber] with hex(H(salt + n)) equal to the challenge. */
function altchaHash(job) {
  const digest = DIGESTS[job.algorithm]
  if (!digest) throw new Error(`unsupported Altcha algorithm ${job.algorithm}`)
  const want = Buffer.from(String(job.challenge).toLowerCase(), 'hex')
  const sum = digestOf(digest, job.salt)
  for (let n = 0; n <= job.maxNumber; n++) {
    const got = sum(n)
    if (got.equals(want)) return { nonce: n, hash: got.toString('hex') }
  }
  throw new Error(`no number up to ${job.maxNumber} solves the challenge`)
}

/**
 * The key derivation of an Altcha v2 challenge: `password` is the challenge's nonce followed by
 * the counter as a big-endian uint32 (the widget's counter mode for v2 challenges).
 */
function deriver(params) {
  const algorithm = String(params.algorithm ?? '').toUpperCase()
  const cost = Number(params.cost)
  const keyLength = params.keyLength === undefined ? 32 : Number(params.keyLength)
  const salt = Buffer.from(String(params.salt ?? ''), 'hex')
  if (!Number.isInteger(keyLength) || keyLength < 1 || keyLength > 1024) throw new Error(`bad keyLength ${params.keyLength}`)
  if (algorithm.startsWith('PBKDF2/')) {
    const digest = DIGESTS[algorithm.slice('PBKDF2/'.length)]
    if (!digest || !Number.isInteger(cost) || cost < 1) throw new Error(`unsupported Altcha algorithm ${params.algorithm} (cost ${params.cost})`)
    return (password) => crypto.pbkdf2Sync(password, salt, cost, keyLength, digest)
  }
  if (DIGESTS[algorithm]) {
    // As the widget does it: H(salt ‖ password), then H of the previous key, `cost` times in all,
    // each key cut to keyLength bytes.
    const digest = DIGESTS[algorithm]
    const rounds = Math.max(1, Number.isInteger(cost) ? cost : 1)
    return (password) => {
      let key = crypto.createHash(digest).update(salt).update(password).digest().subarray(0, keyLength)
      for (let i = 1; i < rounds; i++) key = crypto.createHash(digest).update(key).digest().subarray(0, keyLength)
      return key
    }
  }
  if (algorithm === 'SCRYPT') {
    const r = Number(params.memoryCost ?? 8)
    const p = Number(params.parallelism ?? 1)
    const options = { N: cost, r, p, maxmem: 2 * 128 * cost * r * p + 1024 * 1024 }
    return (password) => crypto.scryptSync(password, salt, keyLength, options)
  }
  if (algorithm === 'ARGON2ID') {
    if (typeof crypto.argon2Sync !== 'function') throw new Error('ARGON2ID needs Node.js 24.7 or newer')
    const options = { nonce: salt, parallelism: Number(params.parallelism ?? 1), tagLength: keyLength, memory: Number(params.memoryCost), passes: cost }
    return (password) => crypto.argon2Sync('argon2id', { ...options, message: password })
  }
  throw new Error(`unsupported Altcha algorithm ${params.algorithm}`)
}

/** Altcha v2: the first counter whose derived key starts with keyPrefix (hex; an odd length compares as text). */
function altchaKdf(job) {
  const params = job.params
  const derive = deriver(params)
  const nonce = Buffer.from(String(params.nonce ?? ''), 'hex')
  const prefixHex = String(params.keyPrefix ?? '').toLowerCase()
  const prefix = prefixHex.length % 2 === 0 ? Buffer.from(prefixHex, 'hex') : null
  const password = Buffer.alloc(nonce.length + 4)
  nonce.copy(password, 0)
  for (let counter = 0; counter <= UINT32_MAX; counter++) {
    password.writeUInt32BE(counter, nonce.length)
    const key = derive(password)
    const hit = prefix ? key.subarray(0, prefix.length).equals(prefix) : key.toString('hex').startsWith(prefixHex)
    if (hit) return { nonce: counter, hash: key.toString('hex') }
  }
  throw new Error('no counter solves the challenge')
}

const SOLVERS = { 'sha256-prefix': sha256Prefix, 'altcha-hash': altchaHash, 'altcha-kdf': altchaKdf }

const started = process.hrtime.bigint()
try {
  const solver = SOLVERS[workerData?.kind]
  if (!solver) throw new Error(`unknown proof-of-work kind ${workerData?.kind}`)
  const found = solver(workerData)
  const ms = Number(process.hrtime.bigint() - started) / 1e6
  parentPort.postMessage({ nonce: found.nonce, hash: found.hash, ms })
} catch (err) {
  parentPort.postMessage({ error: err instanceof Error ? err.message : String(err) })
}
