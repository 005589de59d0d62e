import { randomInt, randomUUID, scrypt } from 'node:crypto'
import { Agent, request } from 'undici'
import { afterAll, beforeEach, describe, expect, test, vi } from 'vitest'
import { createTestDatabase } from './support/postgres.ts'
import { skipWithoutPostgres, skipWithoutRedis } from './support/servers.ts'
import { startTrawl, type Trawl } from './support/start-trawl.ts'

/**
 * Dashboard sign-in under attack: the password check (scrypt) is counted here by a spy on
 * node:crypto's scrypt, which the server running in this process calls. Login throttling must
 * hold however many guesses arrive at once and in however many processes: an attempt is taken from
 * the email's and the address's budgets before the password is checked, never counted after.
 * An unknown email costs the same password check as a known one.
 */

vi.mock('node:crypto', async (importOriginal) => {
  const actual = await importOriginal<typeof import('node:crypto')>()
  return { ...actual, scrypt: vi.fn(actual.scrypt) }
})
const scrypts = () => vi.mocked(scrypt).mock.calls.length

const PASSWORD = 'correct horse battery'
const email = () => `${randomUUID()}@example.test`

/** A client address of its own on the loopback network (127.x.y.z), so counters of other runs never meet these. */
function clientAddress() {
  const address = `127.${randomInt(1, 255)}.${randomInt(0, 256)}.${randomInt(1, 255)}`
  const agent = new Agent({ localAddress: address, connections: 400 })
  agents.push(agent)
  return agent
}
const agents: Agent[] = []
afterAll(async () => {
  await Promise.all(agents.map((a) => a.close()))
})

async function signIn(t: Trawl, agent: Agent, address: string, password: string) {
  const res = await request(`${t.base}/app/api/v1/login`, {
    method: 'POST',
    dispatcher: agent,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: address, password }),
  })
  const text = await res.body.text()
  return { status: res.statusCode, body: JSON.parse(text) as { error?: { code: string; message: string; request_id: string } } }
}

/** 300 wrong guesses at once for one email from one address, the right password as guess 251. */
async function flood(servers: Trawl[], agent: Agent, victim: string) {
  return Promise.all(Array.from({ length: 300 }, (_, i) => signIn(servers[i % servers.length]!, agent, victim, i === 250 ? PASSWORD : `wrong guess ${i}`)))
}

function expectAtMostTheLimitEvaluated(answers: Awaited<ReturnType<typeof flood>>) {
  const evaluated = answers.filter((a) => a.status !== 429)
  // 10 per email per 15 minutes: the 10 that took an attempt were checked, and were wrong.
  expect(evaluated.map((a) => a.status)).toEqual(Array(10).fill(401))
  expect(answers[250]!.status).toBe(429)
  for (const refused of answers.filter((a) => a.status === 429)) expect(refused.body.error?.message).toMatch(/too many failed logins/)
}

beforeEach(() => {
  vi.mocked(scrypt).mockClear()
})

describe('login throttling holds under concurrency', () => {
  test('SQLite, counters in the database: of 300 concurrent guesses 10 are checked; the right password among them is refused', async () => {
    const t = await startTrawl()
    try {
      const victim = email()
      await t.account({ email: victim, password: PASSWORD })
      const agent = clientAddress()
      vi.mocked(scrypt).mockClear()
      expectAtMostTheLimitEvaluated(await flood([t], agent, victim))
      expect(scrypts()).toBe(10)
      expect((await signIn(t, agent, victim, PASSWORD)).status).toBe(429)
      // The address has 10 of its 30 attempts used: another account from it still signs in.
      const other = email()
      await t.account({ email: other, password: PASSWORD })
      expect((await signIn(t, agent, other, PASSWORD)).status).toBe(200)
    } finally {
      await t.close()
    }
  }, 60_000)

  test('a success gives its attempt back: signing in again and again never locks the address out', async () => {
    const t = await startTrawl()
    try {
      const user = email()
      await t.account({ email: user, password: PASSWORD })
      const agent = clientAddress()
      for (let i = 0; i < 40; i++) expect((await signIn(t, agent, user, PASSWORD)).status).toBe(200)
      for (let i = 0; i < 10; i++) expect((await signIn(t, agent, user, 'wrong')).status).toBe(401)
      expect((await signIn(t, agent, user, PASSWORD)).status).toBe(429)
    } finally {
      await t.close()
    }
  }, 60_000)

  test.skipIf(skipWithoutPostgres)(
    'PostgreSQL without Redis, two processes on one database: 10 checked in all',
    async () => {
      const database = await createTestDatabase()
      const a = await startTrawl({ TRAWL_DATABASE_URL: database.url })
      const b = await startTrawl({ TRAWL_DATABASE_URL: database.url })
      try {
        const victim = email()
        await a.account({ email: victim, password: PASSWORD })
        const agent = clientAddress()
        vi.mocked(scrypt).mockClear()
        expectAtMostTheLimitEvaluated(await flood([a, b], agent, victim))
        expect(scrypts()).toBe(10)
        expect((await signIn(b, agent, victim, PASSWORD)).status).toBe(429)
      } finally {
        await a.close()
        await b.close()
        await database.drop()
      }
    },
    90_000,
  )

  test.skipIf(skipWithoutRedis)(
    'Redis, two processes with databases of their own: 10 checked in all',
    async () => {
      const a = await startTrawl({ TRAWL_REDIS_URL: 'redis://127.0.0.1:6379' })
      const b = await startTrawl({ TRAWL_REDIS_URL: 'redis://127.0.0.1:6379' })
      try {
        const victim = email()
        await a.account({ email: victim, password: PASSWORD })
        await b.account({ email: victim, password: PASSWORD })
        const agent = clientAddress()
        vi.mocked(scrypt).mockClear()
        expectAtMostTheLimitEvaluated(await flood([a, b], agent, victim))
        expect(scrypts()).toBe(10)
        expect((await signIn(a, agent, victim, PASSWORD)).status).toBe(429)
        expect((await signIn(b, agent, victim, PASSWORD)).status).toBe(429)
      } finally {
        await a.close()
        await b.close()
      }
    },
    90_000,
  )
})

describe('an unknown email is checked like a known one', () => {
  test('the same 401 and the same password check (one scrypt) for an unknown email, a user without a password, and a wrong password', async () => {
    const t = await startTrawl()
    try {
      const known = email()
      const account = await t.account({ email: known, password: PASSWORD })
      const passwordless = email()
      // A member added without a password (only a key holder) exists but cannot sign in.
      await t.services.store.db.updateTable('users').set({ password_hash: null }).where('id', '=', account.ownerId).execute()
      await t.services.store.db.updateTable('users').set({ email: passwordless }).where('id', '=', account.ownerId).execute()
      const other = email()
      await t.account({ email: other, password: PASSWORD })
      const agent = clientAddress()
      const answers = []
      for (const [address, password] of [
        [other, 'wrong password'],
        [`nobody-${randomUUID()}@example.test`, 'wrong password'],
        [passwordless, 'wrong password'],
      ] as const) {
        vi.mocked(scrypt).mockClear()
        answers.push(await signIn(t, agent, address, password))
        expect(scrypts(), address).toBe(1)
      }
      const shapes = answers.map((a) => ({ status: a.status, code: a.body.error?.code, message: a.body.error?.message }))
      expect(shapes).toEqual(Array(3).fill({ status: 401, code: 'unauthorized', message: 'email or password is wrong' }))
    } finally {
      await t.close()
    }
  })
})
