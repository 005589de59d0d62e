import { execFile, spawn } from 'node:child_process'
import { randomBytes, scryptSync } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { maintenanceSweeps } from '../src/services.ts'
import { startTrawl, type Trawl } from './support/start-trawl.ts'

/**
 * Passwords after account creation: the operator's PATCH and `trawl accounts set-password`, the
 * signed-in user's change in the dashboard API (other sessions signed out), and self-service
 * sign-up behind TRAWL_SIGNUP=open.
 */

const TRAWL = new URL('../bin/trawl.mjs', import.meta.url).pathname
let dir: string
let trawl: Trawl
let env: Record<string, string>
let n = 0
const email = () => `pw-${process.pid}-${++n}@example.test`

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'trawl-pw-'))
  trawl = await startTrawl({}, { databaseDir: dir })
  env = { ...process.env, TRAWL_DATABASE_URL: `sqlite:${join(dir, 'trawl.db')}` } as Record<string, string>
})
afterAll(async () => {
  await trawl.close()
  rmSync(dir, { recursive: true, force: true })
})

/** Runs `trawl ...args` with `input` on stdin (an empty pipe when undefined). */
function cli(args: string[], input?: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = execFile(process.execPath, [TRAWL, ...args], { env }, (err, stdout, stderr) =>
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    )
    child.stdin?.end(input ?? '')
  })
}

async function api(t: Trawl, method: string, path: string, body?: unknown, cookie?: string) {
  return fetch(`${t.base}/app/api/v1${path}`, {
    method,
    headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...(cookie ? { cookie } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
}

const sessionCookie = (res: Response) => {
  const cookie = res.headers.getSetCookie().find((c) => c.startsWith('trawl_session='))
  return cookie?.split(';')[0]
}

/** Signs in; the session cookie, or undefined with the status when refused. */
async function signIn(t: Trawl, address: string, password: string) {
  const res = await api(t, 'POST', '/login', { email: address, password })
  return { status: res.status, cookie: sessionCookie(res) }
}

const signedIn = async (t: Trawl, cookie: string) => (await api(t, 'GET', '/keys', undefined, cookie)).status === 200

describe('what a password may be', () => {
  test.each([
    ['        ', 'password may not be only spaces'],
    ['12345678', 'password is too weak: it is one of the most used passwords'],
    ['qwertyuiop', 'password is too weak'],
    ['pass\u0000word-and-more', 'password may not contain control characters'],
  ])('%j is refused (the rule of every password set: operator, member, sign-up, change); nothing changes', async (password, message) => {
    const address = email()
    const { id } = await trawl.account({ email: address })
    const res = await trawl.admin('PATCH', `/admin/v1/accounts/${id}`, { password })
    expect(res.status).toBe(400)
    expect(((await res.json()) as { error: { message: string } }).error.message).toContain(message)
    expect((await signIn(trawl, address, password)).status).toBe(401)
  })

  test("the account's own email is too weak a password", async () => {
    const address = email()
    const res = await trawl.admin('POST', '/admin/v1/accounts', { email: address, password: address })
    expect(res.status).toBe(400)
    expect(((await res.json()) as { error: { message: string } }).error.message).toContain('password is too weak')
  })

  test('a hash made with the old, cheaper scrypt settings is made again at sign-in', async () => {
    const address = email()
    await trawl.account({ email: address, password: 'an old kept password' })
    const users = () => trawl.services.store.db.selectFrom('users').select(['id', 'password_hash']).where('email', '=', address).executeTakeFirstOrThrow()
    const { id: userId } = await users()
    // What the earlier version stored: N=2^14, r=8, p=1.
    const salt = randomBytes(16)
    const old = `scrypt$16384$8$1$${salt.toString('base64')}$${scryptSync('an old kept password', salt, 32, { N: 16384, r: 8, p: 1 }).toString('base64')}`
    await trawl.services.store.db.updateTable('users').set({ password_hash: old }).where('id', '=', userId).execute()
    expect((await signIn(trawl, address, 'an old kept password')).status).toBe(200)
    const { password_hash } = await users()
    expect(password_hash).toMatch(/^scrypt\$32768\$8\$3\$/)
    expect((await signIn(trawl, address, 'an old kept password')).status).toBe(200)
  })
})

describe('sessions', () => {
  test('a user keeps at most 20 sessions: signing in again ends the oldest; expired ones are swept', async () => {
    const address = email()
    await trawl.account({ email: address, password: 'many devices here' })
    const cookies: string[] = []
    for (let i = 0; i < 22; i++) cookies.push((await signIn(trawl, address, 'many devices here')).cookie!)
    expect(await signedIn(trawl, cookies[0]!)).toBe(false)
    expect(await signedIn(trawl, cookies[1]!)).toBe(false)
    expect(await signedIn(trawl, cookies[2]!)).toBe(true)
    expect(await signedIn(trawl, cookies[21]!)).toBe(true)
    const { db } = trawl.services.store
    const count = async () =>
      Number(
        (
          await db
            .selectFrom('sessions')
            .select((eb) => eb.fn.countAll().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      )
    const before = await count()
    await db.updateTable('sessions').set({ expires_at: 1 }).execute()
    const sweep = maintenanceSweeps(trawl.services).find((s) => s.field === 'sessions')!
    expect(await sweep.run(Date.now())).toBe(before)
    expect(await count()).toBe(0)
  })
})

describe('operator sets a password', () => {
  test('PATCH /admin/v1/accounts/{id} with password: the owner of an account made without one can sign in', async () => {
    const address = email()
    const { id } = await trawl.account({ email: address })
    expect((await signIn(trawl, address, 'first password')).status).toBe(401)
    const short = await trawl.admin('PATCH', `/admin/v1/accounts/${id}`, { password: 'short' })
    expect(short.status).toBe(400)
    expect(((await short.json()) as { error: { message: string } }).error.message).toContain('password must be at least 8 characters')
    const long = await trawl.admin('PATCH', `/admin/v1/accounts/${id}`, { password: 'x'.repeat(257) })
    expect(long.status).toBe(400)
    const res = await trawl.admin('PATCH', `/admin/v1/accounts/${id}`, { password: 'first password' })
    expect(res.status).toBe(200)
    expect(await res.json()).toMatchObject({ id, plan: 'free' })
    const first = await signIn(trawl, address, 'first password')
    expect(first.status).toBe(200)
    // A reset signs the owner out everywhere.
    expect((await trawl.admin('PATCH', `/admin/v1/accounts/${id}`, { password: 'second password' })).status).toBe(200)
    expect(await signedIn(trawl, first.cookie!)).toBe(false)
    expect((await signIn(trawl, address, 'first password')).status).toBe(401)
    expect((await signIn(trawl, address, 'second password')).status).toBe(200)
  })

  test('trawl accounts set-password: by account id with --password, by email from stdin, refusals', async () => {
    const address = email()
    const { id } = await trawl.account({ email: address })
    const byId = await cli(['accounts', 'set-password', '--account', id, '--password', 'cli password 1'])
    expect(byId).toMatchObject({ code: 0, stdout: expect.stringContaining(`password set for ${address}`) })
    const session = await signIn(trawl, address, 'cli password 1')
    expect(session.status).toBe(200)

    const byEmail = await cli(['accounts', 'set-password', '--account', address.toUpperCase(), '--json'], 'piped password 2\n')
    expect(byEmail.code).toBe(0)
    expect(JSON.parse(byEmail.stdout)).toMatchObject({ account_id: id, email: address, password_set: true })
    expect(await signedIn(trawl, session.cookie!)).toBe(false)
    expect((await signIn(trawl, address, 'cli password 1')).status).toBe(401)
    // The trailing newline of the pipe is not part of the password.
    expect((await signIn(trawl, address, 'piped password 2')).status).toBe(200)

    const [tooShort, empty, unknown] = await Promise.all([
      cli(['accounts', 'set-password', '--account', id, '--password', 'short']),
      cli(['accounts', 'set-password', '--account', id]),
      cli(['accounts', 'set-password', '--account', 'nobody@example.test', '--password', 'long enough']),
    ])
    expect(tooShort).toMatchObject({ code: 2, stderr: expect.stringContaining('password must be at least 8 characters') })
    expect(empty).toMatchObject({ code: 2, stderr: expect.stringContaining('no password') })
    expect(unknown.code).not.toBe(0)
    expect(unknown.stderr).toContain('no user has the email nobody@example.test')
    expect((await signIn(trawl, address, 'piped password 2')).status).toBe(200)
  })
})

/**
 * Runs `trawl ...args` on a pseudo-terminal (util-linux `script`), typing each line once the
 * output so far contains its prompt, as a person at the terminal would.
 */
function atTerminal(args: string[], answers: [prompt: string, line: string][]): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    const command = [process.execPath, TRAWL, ...args].map((a) => `'${a}'`).join(' ')
    const child = spawn('script', ['-qec', command, '/dev/null'], { env })
    let output = ''
    let next = 0
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString()
      while (next < answers.length && output.split(answers[next]![0]).length - 1 > countBefore(answers, next)) {
        child.stdin.write(`${answers[next]![1]}\r`)
        next++
      }
    })
    child.on('close', (code) => resolve({ code: code ?? 1, output }))
  })
}
/** How many of the earlier answers wait for the same prompt (each prompt is answered once per time it shows). */
const countBefore = (answers: [string, string][], i: number) => answers.slice(0, i).filter(([p]) => p === answers[i]![0]).length

describe('accounts set-password at a terminal', () => {
  test('asks twice without echo; two that differ change nothing', async () => {
    const address = email()
    await trawl.account({ email: address, password: 'first password 0' })
    const differ = await atTerminal(
      ['accounts', 'set-password', '--account', address],
      [
        ['New password: ', 'typed password 1'],
        ['Same password again: ', 'typed password 2'],
      ],
    )
    expect(differ.code).toBe(2)
    expect(differ.output).toContain('the two passwords differ; nothing was changed')
    expect(differ.output).not.toContain('typed password')
    expect((await signIn(trawl, address, 'first password 0')).status).toBe(200)

    const same = await atTerminal(
      ['accounts', 'set-password', '--account', address],
      [
        ['New password: ', 'typed password 3'],
        ['Same password again: ', 'typed password 3'],
      ],
    )
    expect(same.code).toBe(0)
    expect(same.output).toContain(`password set for ${address}`)
    expect(same.output).not.toContain('typed password')
    expect((await signIn(trawl, address, 'typed password 3')).status).toBe(200)
    expect((await signIn(trawl, address, 'first password 0')).status).toBe(401)
  })
})

describe('the signed-in user changes their password', () => {
  test('the current password is required; other sessions are signed out, this one stays', async () => {
    const address = email()
    await trawl.account({ email: address, password: 'old password' })
    const here = (await signIn(trawl, address, 'old password')).cookie!
    const elsewhere = (await signIn(trawl, address, 'old password')).cookie!

    const wrong = await api(trawl, 'POST', '/password', { current_password: 'not it at all', new_password: 'new password' }, here)
    expect(wrong.status).toBe(403)
    expect(((await wrong.json()) as { error: { message: string } }).error.message).toBe('current password is wrong')
    // Nothing changed: both sessions live, the old password still signs in, the new one does not.
    expect(await signedIn(trawl, here)).toBe(true)
    expect(await signedIn(trawl, elsewhere)).toBe(true)
    expect((await signIn(trawl, address, 'new password')).status).toBe(401)

    const tooShort = await api(trawl, 'POST', '/password', { current_password: 'old password', new_password: 'short' }, here)
    expect(tooShort.status).toBe(400)
    const signedOut = await api(trawl, 'POST', '/password', { current_password: 'old password', new_password: 'new password' })
    expect(signedOut.status).toBe(401)

    const ok = await api(trawl, 'POST', '/password', { current_password: 'old password', new_password: 'new password' }, here)
    expect(ok.status).toBe(204)
    expect(await signedIn(trawl, here)).toBe(true)
    expect(await signedIn(trawl, elsewhere)).toBe(false)
    expect((await signIn(trawl, address, 'old password')).status).toBe(401)
    expect((await signIn(trawl, address, 'new password')).status).toBe(200)
  })
})

describe('self-service sign-up', () => {
  test('off by default: 404, nothing created', async () => {
    const address = email()
    const res = await api(trawl, 'POST', '/signup', { email: address, password: 'a good password' })
    expect(res.status).toBe(404)
    expect((await signIn(trawl, address, 'a good password')).status).toBe(401)
  })

  test('TRAWL_SIGNUP=open: a free account with TRAWL_SIGNUP_CREDITS, signed in, with a working key; a mailbox signs up once', async () => {
    const t = await startTrawl({ TRAWL_SIGNUP: 'open', TRAWL_SIGNUP_CREDITS: '100' })
    try {
      const address = email()
      const res = await api(t, 'POST', '/signup', { email: address, password: 'a good password' })
      expect(res.status).toBe(201)
      const body = (await res.json()) as {
        user: { email: string; role: string }
        account: { id: string; plan: string; balance: number }
        key: { secret: string }
      }
      expect(body).toMatchObject({ user: { email: address, role: 'owner' }, account: { plan: 'free', balance: 100 } })
      const cookie = sessionCookie(res)!
      expect(await signedIn(t, cookie)).toBe(true)
      const account = await fetch(`${t.base}/v1/account`, { headers: { authorization: `Bearer ${body.key.secret}` } })
      expect(await account.json()).toMatchObject({ plan: 'free', balance: 100 })
      expect((await signIn(t, address, 'a good password')).status).toBe(200)

      const [short, badEmail] = await Promise.all([
        api(t, 'POST', '/signup', { email: email(), password: 'short' }),
        api(t, 'POST', '/signup', { email: 'not-an-email', password: 'long enough' }),
      ])
      expect([short.status, badEmail.status]).toEqual([400, 400])
      // The same mailbox again, with or without a +tag: once an hour.
      const [local, domain] = address.split('@')
      const again = await api(t, 'POST', '/signup', { email: `${local}+farm@${domain}`, password: 'another password' })
      expect(again.status).toBe(429)
      expect((await again.json()).error.message).toContain('too many sign-ups')
    } finally {
      await t.close()
    }
  })

  test('a sign-up with an email that has an account is refused without saying it is registered', async () => {
    const t = await startTrawl({ TRAWL_SIGNUP: 'open' })
    try {
      const taken = email()
      await t.account({ email: taken })
      const refused = await api(t, 'POST', '/signup', { email: taken.toUpperCase(), password: 'a good password' })
      expect(refused.status).toBe(400)
      const message = (await refused.json()).error.message as string
      expect(message).toBe('this email cannot sign up here; if it has an account, sign in (the operator resets forgotten passwords)')
      expect(message.toLowerCase()).not.toContain(taken)
      expect(message).not.toContain('registered')
    } finally {
      await t.close()
    }
  })

  test('sign-ups have budgets of their own: a shared address that spent them still signs in; no credits by default', async () => {
    const t = await startTrawl({ TRAWL_SIGNUP: 'open', TRAWL_SIGNUP_PER_HOUR: '2' })
    try {
      const owner = email()
      const first = await api(t, 'POST', '/signup', { email: owner, password: 'the owner password' })
      expect(first.status).toBe(201)
      expect((await first.json()).account.balance).toBe(0)
      const more = await Promise.all(Array.from({ length: 6 }, () => api(t, 'POST', '/signup', { email: email(), password: 'a good password' })))
      expect(more.map((r) => r.status).sort()).toEqual([201, 429, 429, 429, 429, 429])
      // Ten sign-ups with the owner's address neither lock the owner out nor reveal anything new.
      for (let i = 0; i < 10; i++) await api(t, 'POST', '/signup', { email: owner, password: 'a good password' })
      expect((await signIn(t, owner, 'the owner password')).status).toBe(200)
    } finally {
      await t.close()
    }
  })

  test('behind a trusted proxy each client has its own budget; an IPv6 client counts as its /64; untrusted X-Forwarded-For is ignored', async () => {
    const signupFrom = (t: Trawl, forwardedFor: string) =>
      fetch(`${t.base}/app/api/v1/signup`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-forwarded-for': forwardedFor },
        body: JSON.stringify({ email: email(), password: 'a good password' }),
      }).then((r) => r.status)
    const trusted = await startTrawl({ TRAWL_SIGNUP: 'open', TRAWL_SIGNUP_PER_HOUR: '1', TRAWL_TRUST_PROXY: '127.0.0.1' })
    const untrusted = await startTrawl({ TRAWL_SIGNUP: 'open', TRAWL_SIGNUP_PER_HOUR: '1' })
    try {
      expect(await signupFrom(trusted, '198.51.100.7')).toBe(201)
      expect(await signupFrom(trusted, '198.51.100.8')).toBe(201)
      expect(await signupFrom(trusted, '198.51.100.7')).toBe(429)
      expect(await signupFrom(trusted, '2001:db8:1:2::1')).toBe(201)
      expect(await signupFrom(trusted, '2001:db8:1:2:ffff::9')).toBe(429)
      expect(await signupFrom(trusted, '2001:db8:1:3::1')).toBe(201)
      // Without TRAWL_TRUST_PROXY the header is the client's word: every request is 127.0.0.1.
      expect(await signupFrom(untrusted, '198.51.100.7')).toBe(201)
      expect(await signupFrom(untrusted, '198.51.100.8')).toBe(429)
    } finally {
      await trusted.close()
      await untrusted.close()
    }
  })
})
