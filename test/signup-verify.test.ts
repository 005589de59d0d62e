import type { IncomingMessage } from 'node:http'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { launchChromium, skipWithoutChromium } from './support/browser.ts'
import { freePort } from './support/free-port.ts'
import { pathServer } from './support/path-server.ts'
import { startTrawl, type Trawl } from './support/start-trawl.ts'

/**
 * Sign-up with proof of the mailbox (TRAWL_SIGNUP_VERIFY_URL, docs/dashboard.md): the link goes to
 * the operator's hook, and nothing (account, key, credits) exists until it is opened, once.
 */

interface HookMessage {
  type: string
  email: string
  verify_url: string
  expires_at: string
}
const received: HookMessage[] = []
let hookStatus = 200
let hook: Awaited<ReturnType<typeof pathServer>>
let trawl: Trawl
let n = 0
const email = () => `verify-${process.pid}-${++n}@example.test`

const readJson = (req: IncomingMessage) =>
  new Promise<unknown>((resolve) => {
    let body = ''
    req.on('data', (c) => (body += c))
    req.on('end', () => resolve(JSON.parse(body)))
  })

beforeAll(async () => {
  hook = await pathServer({
    '/send': async (req, res) => {
      received.push((await readJson(req)) as HookMessage)
      res.writeHead(hookStatus).end()
    },
  })
  // A known port, so that TRAWL_APP_URL, which the emailed link and its redirect name, is this server's.
  const port = await freePort()
  trawl = await startTrawl(
    {
      TRAWL_PORT: String(port),
      TRAWL_SIGNUP: 'open',
      TRAWL_SIGNUP_VERIFY_URL: `${hook.base}/send`,
      TRAWL_SIGNUP_CREDITS: '5',
      TRAWL_SIGNUP_PER_HOUR: '100',
    },
    { port },
  )
})
afterAll(async () => {
  await trawl?.close()
  await hook?.close()
})

const api = (path: string, body?: unknown, cookie?: string) =>
  fetch(`${trawl.base}/app/api/v1${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...(cookie ? { cookie } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
const cookieOf = (res: Response) =>
  res.headers
    .getSetCookie()
    .find((c) => c.startsWith('trawl_session='))
    ?.split(';')[0]

describe('sign-up with an email link', () => {
  test('202 and a link to the hook; no account until the link is opened; the link signs in once and makes the account', async () => {
    const address = email()
    const res = await api('/signup', { email: address, password: 'a good password 1' })
    expect(res.status).toBe(202)
    expect(await res.json()).toMatchObject({ status: 'verification_sent', email: address })
    const message = received.at(-1)!
    expect(message).toMatchObject({ type: 'signup.verify', email: address })
    expect(message.verify_url).toMatch(new RegExp(`^${trawl.base}/app/api/v1/signup/verify\\?token=[\\w-]{43}$`))
    // Not yet an account: sign-in fails, no session was given.
    expect(cookieOf(res)).toBeUndefined()
    expect((await api('/login', { email: address, password: 'a good password 1' })).status).toBe(401)

    const opened = await fetch(message.verify_url, { redirect: 'manual' })
    expect(opened.status).toBe(303)
    expect(opened.headers.get('location')).toBe(`${trawl.base}/app/`)
    const cookie = cookieOf(opened)!
    const account = await (await api('/account', undefined, cookie)).json()
    expect(account).toMatchObject({ user: { email: address, role: 'owner' }, account: { plan: 'free', balance: 5 } })
    expect((await api('/login', { email: address, password: 'a good password 1' })).status).toBe(200)

    const again = await fetch(message.verify_url, { redirect: 'manual' })
    expect(again.status).toBe(400)
    expect((await again.json()).error.message).toBe('this sign-up link is unknown, already used or expired: sign up again')
  })

  test('a bad password, a taken email or a second sign-up of the mailbox within the hour never reaches the hook', async () => {
    const address = email()
    await api('/signup', { email: address, password: 'first good password' })
    const link = received.at(-1)!.verify_url
    const count = received.length
    const [again, weak] = await Promise.all([
      api('/signup', { email: address, password: 'second good password' }),
      api('/signup', { email: email(), password: '12345678' }),
    ])
    expect([again.status, weak.status]).toEqual([429, 400])
    expect((await fetch(link, { redirect: 'manual' })).status).toBe(303)
    expect((await api('/login', { email: address, password: 'first good password' })).status).toBe(200)
    const operatorMade = email()
    await trawl.account({ email: operatorMade })
    const taken = await api('/signup', { email: operatorMade.toUpperCase(), password: 'a good password 3' })
    expect(taken.status).toBe(400)
    expect((await taken.json()).error.message).toContain('cannot sign up here')
    expect(received.length).toBe(count)
  })

  test('a link without its token, with another parameter or a token too long is 400; it makes nothing', async () => {
    const link = `${trawl.base}/app/api/v1/signup/verify`
    const answers = await Promise.all(
      [link, `${link}?token=`, `${link}?token=abc&next=https://elsewhere.example/`, `${link}?token=${'a'.repeat(201)}`].map(async (url) => {
        const res = await fetch(url, { redirect: 'manual' })
        return [res.status, ((await res.json()) as { error: { code: string } }).error.code]
      }),
    )
    expect(answers).toEqual(Array(4).fill([400, 'invalid_request']))
    expect((await fetch(`${link}?token=${'b'.repeat(43)}`, { redirect: 'manual' })).status).toBe(400)
  })

  test('a hook that fails is a 503 that keeps nothing: its link does not work', async () => {
    const address = email()
    hookStatus = 500
    try {
      const failed = await api('/signup', { email: address, password: 'a good password 4' })
      expect(failed.status).toBe(503)
      const error = (await failed.json()).error
      expect(error).toMatchObject({ code: 'unavailable' })
      expect(error.message).toContain("the operator's verification hook answered HTTP 500")
      const link = received.at(-1)!.verify_url
      expect((await fetch(link, { redirect: 'manual' })).status).toBe(400)
    } finally {
      hookStatus = 200
    }
    expect((await api('/login', { email: address, password: 'a good password 4' })).status).toBe(401)
  })
})

describe.skipIf(skipWithoutChromium)('the dashboard with an email link', () => {
  test('the form says to check the inbox; the link opens the dashboard signed in', async () => {
    const browser = await launchChromium()
    try {
      const page = await (await browser.newContext({ viewport: { width: 390, height: 844 } })).newPage()
      const errors: string[] = []
      page.on('pageerror', (e) => errors.push(e.message))
      await page.goto(`${trawl.base}/app`)
      await page.getByRole('button', { name: 'Create an account' }).click()
      const address = email()
      await page.getByLabel('Email').fill(address)
      await page.getByLabel('Password (8 to 256 characters)').fill('a good browser password')
      await page.getByRole('button', { name: 'Create account' }).click()
      await page.getByRole('heading', { name: 'Check your inbox' }).waitFor()
      expect(await page.getByTestId('signup-verify').textContent()).toContain(address)
      await page.goto(received.at(-1)!.verify_url)
      await page.getByTestId('keys-table').waitFor()
      expect(await page.locator('.who .badge').textContent()).toBe('owner')
      expect(errors).toEqual([])
    } finally {
      await browser.close()
    }
  }, 60_000)
})
