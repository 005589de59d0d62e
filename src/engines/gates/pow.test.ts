import { createHash, pbkdf2Sync, randomBytes, scryptSync } from 'node:crypto'
import { describe, expect, test, vi } from 'vitest'
import { GateError, type PowJob } from './gate.types.ts'
import { createPowSolver } from './pow.ts'

/** Threads started by the solver (the real Worker, counted). */
const started = vi.hoisted(() => ({ count: 0 }))
vi.mock('node:worker_threads', async (original) => {
  const real = await original<typeof import('node:worker_threads')>()
  class CountedWorker extends real.Worker {
    constructor(...args: ConstructorParameters<typeof real.Worker>) {
      super(...args)
      started.count++
    }
  }
  return { ...real, Worker: CountedWorker }
})

const solver = (timeoutMs = 10_000, outcomes: [string, string, number][] = []) =>
  createPowSolver({ timeoutMs, onSolve: (gate, outcome, ms) => outcomes.push([gate, outcome, ms]) })

const sha256hex = (s: string) => createHash('sha256').update(s).digest('hex')

/** The v2 password: the challenge nonce followed by the counter as a big-endian uint32. */
const password = (nonce: string, counter: number) =>
  Buffer.concat([Buffer.from(nonce, 'hex'), Buffer.from([counter >>> 24, (counter >>> 16) & 255, (counter >>> 8) & 255, counter & 255])])

describe('proof of work on a worker thread', () => {
  test('sha256-prefix: the first nonce whose SHA-256(challenge + nonce) has the leading hex zeros', async () => {
    const challenge = randomBytes(64).toString('hex')
    const outcomes: [string, string, number][] = []
    const found = await solver(10_000, outcomes)({ kind: 'sha256-prefix', challenge, difficulty: 3 }, 'anubis')
    expect(found.hash).toBe(sha256hex(challenge + found.nonce))
    expect(found.hash?.startsWith('000')).toBe(true)
    for (let n = 0; n < found.nonce; n++) expect(sha256hex(challenge + n).startsWith('000')).toBe(false)
    expect(outcomes).toEqual([['anubis', 'solved', found.ms]])
  })

  test('sha256-prefix: an odd difficulty checks the half byte', async () => {
    const challenge = randomBytes(64).toString('hex')
    const found = await solver()({ kind: 'sha256-prefix', challenge, difficulty: 1 }, 'anubis')
    expect(found.hash?.[0]).toBe('0')
    for (let n = 0; n < found.nonce; n++) expect(sha256hex(challenge + n)[0]).not.toBe('0')
  })

  test.each([
    ['SHA-256', 'sha256'],
    ['SHA-384', 'sha384'],
    ['SHA-512', 'sha512'],
  ] as const)('altcha-hash (v1, %s): the number whose hash is the challenge', async (algorithm, digest) => {
    const salt = `${randomBytes(12).toString('hex')}?expires=1900000000`
    const number = 4321
    const challenge = createHash(digest)
      .update(salt + number)
      .digest('hex')
    const found = await solver()({ kind: 'altcha-hash', algorithm, salt, challenge, maxNumber: 100_000 }, 'altcha')
    expect(found.nonce).toBe(number)
    expect(found.hash).toBe(challenge)
  })

  test('altcha-hash: a challenge no number up to maxNumber solves fails with the reason', async () => {
    const challenge = sha256hex('salt' + 50)
    await expect(solver()({ kind: 'altcha-hash', algorithm: 'SHA-256', salt: 'salt', challenge, maxNumber: 49 }, 'altcha')).rejects.toThrow(
      /proof of work failed: no number up to 49/,
    )
  })

  test('altcha-kdf (v2, PBKDF2/SHA-256): the counter whose derived key starts with keyPrefix', async () => {
    const nonce = randomBytes(16).toString('hex')
    const salt = randomBytes(16).toString('hex')
    const counter = 37
    const key = pbkdf2Sync(password(nonce, counter), Buffer.from(salt, 'hex'), 200, 32, 'sha256')
    const params = { algorithm: 'PBKDF2/SHA-256', nonce, salt, cost: 200, keyLength: 32, keyPrefix: key.subarray(0, 16).toString('hex') }
    const found = await solver()({ kind: 'altcha-kdf', params }, 'altcha')
    expect(found.nonce).toBe(counter)
    expect(found.hash).toBe(key.toString('hex'))
  })

  test('altcha-kdf (v2, PBKDF2/SHA-512, a one-byte prefix): the first counter that matches', async () => {
    const nonce = randomBytes(16).toString('hex')
    const salt = randomBytes(16).toString('hex')
    const derive = (c: number) => pbkdf2Sync(password(nonce, c), Buffer.from(salt, 'hex'), 10, 32, 'sha512').toString('hex')
    const found = await solver()(
      { kind: 'altcha-kdf', params: { algorithm: 'PBKDF2/SHA-512', nonce, salt, cost: 10, keyLength: 32, keyPrefix: '00' } },
      'altcha',
    )
    expect(found.hash).toBe(derive(found.nonce))
    expect(found.hash?.startsWith('00')).toBe(true)
    for (let c = 0; c < found.nonce; c++) expect(derive(c).startsWith('00')).toBe(false)
  })

  test('altcha-kdf (v2, SHA-256 iterated): H(salt ‖ password), then H of the key, cost times', async () => {
    const nonce = randomBytes(16).toString('hex')
    const salt = randomBytes(16).toString('hex')
    const derive = (c: number) => {
      let key = createHash('sha256').update(Buffer.from(salt, 'hex')).update(password(nonce, c)).digest()
      for (let i = 1; i < 3; i++) key = createHash('sha256').update(key).digest()
      return key.toString('hex')
    }
    const keyPrefix = derive(12).slice(0, 32)
    const found = await solver()({ kind: 'altcha-kdf', params: { algorithm: 'SHA-256', nonce, salt, cost: 3, keyLength: 32, keyPrefix } }, 'altcha')
    expect(found).toMatchObject({ nonce: 12, hash: derive(12) })
  })

  test('altcha-kdf (v2, SCRYPT): cost is N, memoryCost r', async () => {
    const nonce = randomBytes(16).toString('hex')
    const salt = randomBytes(16).toString('hex')
    const key = scryptSync(password(nonce, 5), Buffer.from(salt, 'hex'), 32, { N: 16, r: 2, p: 1 })
    const params = { algorithm: 'SCRYPT', nonce, salt, cost: 16, memoryCost: 2, keyLength: 32, keyPrefix: key.subarray(0, 16).toString('hex') }
    expect(await solver()({ kind: 'altcha-kdf', params }, 'altcha')).toMatchObject({ nonce: 5, hash: key.toString('hex') })
  })

  test('a solve harder than the cap ends its thread at the cap and says so', async () => {
    const outcomes: [string, string, number][] = []
    const t0 = Date.now()
    const solve = createPowSolver({ timeoutMs: 200, maxDifficulty: 12, onSolve: (gate, outcome, ms) => outcomes.push([gate, outcome, ms]) })
    const err = await solve({ kind: 'sha256-prefix', challenge: randomBytes(64).toString('hex'), difficulty: 12 }, 'anubis').catch((e) => e)
    expect(err).toBeInstanceOf(GateError)
    expect(err.message).toBe('proof of work harder than the 200 ms cap (difficulty 12)')
    expect(Date.now() - t0).toBeLessThan(1500)
    expect(outcomes).toEqual([['anubis', 'too_hard', expect.any(Number)]])
  })

  test('an Anubis difficulty above the limit is refused at once, without a thread', async () => {
    const outcomes: [string, string, number][] = []
    const before = started.count
    const solve = createPowSolver({ timeoutMs: 10_000, maxDifficulty: 5, onSolve: (gate, outcome, ms) => outcomes.push([gate, outcome, ms]) })
    await expect(solve({ kind: 'sha256-prefix', challenge: 'abc', difficulty: 6 }, 'anubis')).rejects.toThrow(
      'proof of work of difficulty 6 is above the limit of 5',
    )
    const byDefault = createPowSolver({ timeoutMs: 10_000 })
    await expect(byDefault({ kind: 'sha256-prefix', challenge: 'abc', difficulty: 7 }, 'anubis')).rejects.toThrow('above the limit of 6')
    expect(started.count).toBe(before)
    expect(outcomes).toEqual([['anubis', 'too_hard', 0]])
  })

  test('jobs that cannot be run are refused with the reason, without a thread', async () => {
    const before = started.count
    const solve = solver()
    const bad: PowJob[] = [
      { kind: 'sha256-prefix', challenge: '', difficulty: 2 },
      { kind: 'sha256-prefix', challenge: 'x', difficulty: 2.5 },
      { kind: 'altcha-hash', algorithm: 'SHA-256', salt: 's', challenge: 'not hex', maxNumber: 10 },
      { kind: 'altcha-kdf', params: { algorithm: 'PBKDF2/SHA-256', nonce: 'zz', salt: '00', keyPrefix: '00' } },
    ]
    for (const job of bad) await expect(solve(job, 'x')).rejects.toBeInstanceOf(GateError)
    expect(started.count).toBe(before)
  })

  test('an algorithm the worker does not know fails with its name', async () => {
    const params = { algorithm: 'MD5', nonce: '00', salt: '00', cost: 1, keyLength: 16, keyPrefix: '00' }
    await expect(solver()({ kind: 'altcha-kdf', params }, 'altcha')).rejects.toThrow('proof of work failed: unsupported Altcha algorithm MD5')
  })

  test('the event loop keeps turning while a solve runs', async () => {
    let worst = 0
    let last = performance.now()
    const tick = setInterval(() => {
      const now = performance.now()
      worst = Math.max(worst, now - last)
      last = now
    }, 5)
    await solver(1500)({ kind: 'sha256-prefix', challenge: randomBytes(64).toString('hex'), difficulty: 5 }, 'anubis').catch(() => {})
    clearInterval(tick)
    expect(worst).toBeLessThan(200)
  })
})
