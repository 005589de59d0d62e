import { randomUUID } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Browser, Locator, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { launchChromium, skipWithoutChromium } from './support/browser.ts'
import { brokenWords, checkedScreenshot, signInToDashboard } from './support/dashboard-page.ts'
import { type FakeUpstream, fakeUpstream, fixture, htmlPage } from './support/fake-upstream.ts'
import { startTrawl, type Trawl } from './support/start-trawl.ts'
import { startReceiver, verifyTrawlSignature } from './support/webhook-receiver.ts'

/**
 * The dashboard in a real browser (headless Chromium through playwright-core) against the real
 * server, with the engines pointed at a fake upstream: what a user clicks, checked through the
 * API the user's programs call.
 */

const COFFEE = fixture('serp/google/web-desktop/zlurad-coffee.html')
const PASSWORD = 'dashboard password 1'
const TIMEOUT = 60_000
/**
 * What the page shows after an action, waited for up to 10 s: a save and its reload take a few
 * hundred ms alone but seconds when the whole suite loads both cores (expect.poll's own 1 s
 * failed there while the page was right).
 */
const UI_WAIT = { timeout: 10_000 }

/**
 * Fills a field of a dialog just opened, again until it holds `value`. Playwright fills by selecting
 * the text and typing over it; on a loaded machine the dialog's own focus handling (run after it is
 * drawn) can land between the two, and the old value stays.
 */
async function fillField(field: Locator, value: string) {
  await expect
    .poll(async () => {
      await field.fill(value)
      return field.inputValue()
    }, UI_WAIT)
    .toBe(value)
}

let trawl: Trawl
let upstream: FakeUpstream
let receiver: Awaited<ReturnType<typeof startReceiver>>
let browser: Browser
let owner: { id: string; key: string; email: string }
let memberEmail: string
const pageErrors: string[] = []
const shots = mkdtempSync(join(tmpdir(), 'trawl-dashboard-shots-'))

describe.skipIf(skipWithoutChromium)('dashboard web app in Chromium', () => {
  beforeAll(async () => {
    upstream = await fakeUpstream(htmlPage(COFFEE))
    receiver = await startReceiver()
    trawl = await startTrawl({ TRAWL_UPSTREAM_HOSTS: `*=${upstream.url}`, TRAWL_ALLOW_PRIVATE_NETWORK: 'true' })
    const email = `owner-${randomUUID()}@example.test`
    const account = await trawl.account({ email, password: PASSWORD, credits: 200, plan: 'enterprise', rate_limit_rps: 100 })
    owner = { ...account, email }
    memberEmail = `member-${randomUUID()}@example.test`
    expect((await trawl.admin('POST', `/admin/v1/accounts/${owner.id}/members`, { email: memberEmail, password: PASSWORD })).status).toBe(201)
    browser = await launchChromium()
  }, TIMEOUT)
  afterAll(async () => {
    await browser?.close()
    await trawl?.close()
    await upstream?.close()
    await receiver?.close()
    if (!process.env.TRAWL_KEEP_SCREENSHOTS) rmSync(shots, { recursive: true, force: true })
    else console.info(`dashboard screenshots: ${shots}`)
  })

  /** A fresh browser profile at `width`, signed in as `email`, on the keys screen. */
  const signIn = (email: string, width = 1280) => signInToDashboard(browser, trawl.base, { email, password: PASSWORD }, { width, clipboard: true, pageErrors })
  const screenshot = (page: Page, name: string) => checkedScreenshot(page, shots, name)

  const row = (page: Page, name: string) => page.getByTestId('keys-table').locator('tbody tr', { has: page.getByText(name, { exact: true }) })
  const api = (path: string, key: string, init: RequestInit = {}) =>
    fetch(`${trawl.base}${path}`, { ...init, headers: { authorization: `Bearer ${key}`, ...(init.headers as Record<string, string>) } })

  test(
    'sign in, create a key and call the API with it, rotate it and revoke it',
    async () => {
      const context = await browser.newContext({ viewport: { width: 1280, height: 900 } })
      const page = await context.newPage()
      page.on('pageerror', (e) => pageErrors.push(e.message))
      const consoleErrors: string[] = []
      page.on('console', (m) => (m.type() === 'error' ? consoleErrors.push(m.text()) : undefined))
      // Any app path loads the app; signed out, it is the sign-in form (without a session probe the
      // browser would log as a failed request). A wrong password says so.
      await page.goto(`${trawl.base}/app/usage`)
      await page.getByLabel('Email').waitFor()
      expect(consoleErrors).toEqual([])
      // Sign-up is off on this server (no TRAWL_SIGNUP=open): the form does not offer it.
      expect(await page.getByRole('button', { name: 'Create an account' }).count()).toBe(0)
      expect(await page.getByText('Accounts are created by the operator').count()).toBe(1)
      await page.getByLabel('Email').fill(owner.email)
      await page.getByLabel('Password').fill('not the password')
      await page.getByRole('button', { name: 'Sign in' }).click()
      await expect.poll(() => page.getByRole('alert').textContent(), UI_WAIT).toBe('email or password is wrong')
      await context.close()

      const app = await signIn(owner.email)
      await expect.poll(() => row(app, 'default').count(), UI_WAIT).toBe(1)
      await app.getByRole('button', { name: 'Create key' }).click()
      await app.getByLabel('Name').fill('browser key')
      await app.getByLabel('Monthly credit limit (optional)').fill('50')
      await app.getByRole('dialog').getByRole('button', { name: 'Create key' }).click()
      const secret = (await app.getByTestId('secret').textContent())!
      expect(secret).toMatch(/^trawl_live_[A-Za-z0-9_-]{32}$/)
      await expect.poll(() => app.getByRole('alert').first().textContent(), UI_WAIT).toContain('shown only once')
      await app.getByRole('dialog').getByRole('button', { name: 'Copy' }).click()
      expect(await app.evaluate(() => navigator.clipboard.readText())).toBe(secret)
      await app.getByRole('button', { name: 'I have stored it' }).click()
      await expect.poll(() => row(app, 'browser key').textContent(), UI_WAIT).toContain('50 / month')
      expect(await app.content()).not.toContain(secret) // gone from the page once dismissed

      // The secret works with the API, like curl would use it.
      const searched = await api('/v1/search?q=coffee', secret)
      expect(searched.status).toBe(200)
      expect(searched.headers.get('x-credits-used')).toBe('1')
      expect(await (await api('/v1/account', secret)).json()).toMatchObject({ key: { name: 'browser key', credit_limit: 50, credits_used_month: 1 } })
      await app.reload()
      await expect.poll(() => row(app, 'browser key').locator('td[data-label="This month"]').textContent(), UI_WAIT).toBe('1')
      expect(await row(app, 'browser key').locator('td[data-label="Last used"]').textContent()).toBe('just now')
      expect(await row(app, 'browser key').locator('td[data-label="Prefix"]').textContent()).toBe(`${secret.slice(0, 17)}…`)
      await screenshot(app, 'keys-1280')

      // Rotate: a new secret, shown once; the old one stops at once.
      await row(app, 'browser key').getByRole('button', { name: 'Rotate' }).click()
      await app.getByRole('dialog').getByRole('button', { name: 'Rotate key' }).click()
      await app.getByTestId('secret').waitFor()
      const rotated = (await app.getByTestId('secret').textContent())!
      expect(rotated).not.toBe(secret)
      await app.getByRole('button', { name: 'I have stored it' }).click()
      expect((await api('/v1/account', secret)).status).toBe(401)
      expect(await (await api('/v1/account', rotated)).json()).toMatchObject({ key: { name: 'browser key', credits_used_month: 1 } })

      // Rename, then revoke with confirmation: the key leaves the table and fails with 401.
      await row(app, 'browser key').getByRole('button', { name: 'Rename' }).click()
      await app.getByRole('dialog').getByLabel('Name').fill('renamed key')
      await app.getByRole('dialog').getByRole('button', { name: 'Save' }).click()
      await expect.poll(() => row(app, 'renamed key').count(), UI_WAIT).toBe(1)
      await row(app, 'renamed key').getByRole('button', { name: 'Revoke' }).click()
      await app.getByRole('dialog').getByRole('button', { name: 'Cancel' }).click()
      expect(await row(app, 'renamed key').count()).toBe(1) // nothing happens without the confirmation
      await row(app, 'renamed key').getByRole('button', { name: 'Revoke' }).click()
      await app.getByRole('dialog').getByRole('button', { name: 'Revoke key' }).click()
      await expect.poll(() => row(app, 'renamed key').count(), UI_WAIT).toBe(0)
      const revoked = await api('/v1/account', rotated)
      expect(revoked.status).toBe(401)
      expect((await revoked.json()).error.message).toBe('API key was revoked')
      await app.context().close()
    },
    TIMEOUT,
  )

  test(
    'limits: the owner sets key limits and the member key limit; a member gets it, cannot change it, and manages only their own keys',
    async () => {
      const app = await signIn(owner.email)
      await app.getByRole('region', { name: 'Member key limit' }).getByRole('button', { name: 'Change' }).click()
      await fillField(app.getByRole('dialog').getByRole('spinbutton'), '5')
      await app.getByRole('dialog').getByRole('button', { name: 'Save' }).click()
      await expect.poll(() => app.getByRole('region', { name: 'Member key limit' }).textContent(), UI_WAIT).toContain('5 / month')

      // A limit of 2 on the default key: the third call is refused before running.
      await row(app, 'default').getByRole('button', { name: 'Limit' }).click()
      await fillField(app.getByRole('dialog').getByRole('spinbutton'), '2')
      await app.getByRole('dialog').getByRole('button', { name: 'Save' }).click()
      await expect.poll(() => row(app, 'default').locator('td[data-label="Limit"]').textContent(), UI_WAIT).toBe('2 / month')
      const used = (await (await api('/v1/account', owner.key)).json()).key.credits_used_month as number
      for (let i = used; i < 2; i++) expect((await api(`/v1/search?q=coffee${i}`, owner.key)).status).toBe(200)
      const refused = await api('/v1/search?q=over', owner.key)
      expect(refused.status).toBe(403)
      expect((await refused.json()).error.code).toBe('key_limit_reached')
      // The fallback switch is the key's allow_fallback.
      await row(app, 'default').getByRole('switch').check()
      const defaultKey = () =>
        trawl.services.store.db
          .selectFrom('api_keys')
          .select(['allow_fallback', 'credit_limit_mc'])
          .where('account_id', '=', owner.id)
          .where('name', '=', 'default')
          .executeTakeFirst()
      await expect.poll(async () => (await defaultKey())?.allow_fallback, UI_WAIT).toBe(1)
      expect(await row(app, 'default').getByRole('switch').isChecked()).toBe(true)
      // Clear the limit again for the tests after this one.
      await row(app, 'default').getByRole('button', { name: 'Limit' }).click()
      await fillField(app.getByRole('dialog').getByRole('spinbutton'), '')
      await app.getByRole('dialog').getByRole('button', { name: 'Save' }).click()
      // The dialog closes once the change is saved (an error would keep it open, saying why).
      await expect.poll(async () => ((await app.getByRole('dialog').count()) ? await app.getByRole('dialog').textContent() : 'closed'), UI_WAIT).toBe('closed')
      expect((await defaultKey())?.credit_limit_mc).toBeNull()
      await expect.poll(() => row(app, 'default').locator('td[data-label="Limit"]').textContent(), UI_WAIT).toBe('none')
      await app.context().close()

      const member = await signIn(memberEmail)
      expect(await member.getByText('member', { exact: true }).count()).toBeGreaterThan(0)
      expect(await member.getByRole('region', { name: 'Member key limit' }).getByRole('button', { name: 'Change' }).count()).toBe(0)
      // The owner's key is listed but not manageable by the member.
      expect(await row(member, 'default').getByRole('button').count()).toBe(0)
      expect(await row(member, 'default').getByRole('switch').isDisabled()).toBe(true)
      await member.getByRole('button', { name: 'Create key' }).click()
      expect(await member.getByRole('dialog').getByText("The owner's member key limit applies: 5 credits per month.").count()).toBe(1)
      expect(await member.getByRole('dialog').getByRole('spinbutton').count()).toBe(0)
      await member.getByLabel('Name').fill('member key')
      await member.getByRole('dialog').getByRole('button', { name: 'Create key' }).click()
      const memberSecret = (await member.getByTestId('secret').textContent())!
      await member.getByRole('button', { name: 'I have stored it' }).click()
      await expect.poll(() => row(member, 'member key').locator('td[data-label="Limit"]').textContent(), UI_WAIT).toBe('5 / month')
      expect(await row(member, 'member key').getByRole('button', { name: 'Limit' }).count()).toBe(0)
      expect(await row(member, 'member key').getByRole('button', { name: 'Rotate' }).count()).toBe(1)
      expect(await (await api('/v1/account', memberSecret)).json()).toMatchObject({ key: { name: 'member key', credit_limit: 5 } })
      // The API refuses a member's limit change even when sent by hand from the signed-in page.
      const status = await member.evaluate(async () => {
        const keys = await (await fetch('/app/api/v1/keys')).json()
        const mine = keys.keys.find((k: { name: string }) => k.name === 'member key')
        const res = await fetch(`/app/api/v1/keys/${mine.id}`, {
          method: 'PATCH',
          headers: { 'content-type': 'application/json' },
          body: '{"credit_limit":null}',
        })
        return res.status
      })
      expect(status).toBe(403)
      await screenshot(member, 'keys-member-1280')
      await member.context().close()
    },
    TIMEOUT,
  )

  test(
    'webhooks: set the URL (secret shown once), send a test event, rotate the secret and see the deliveries',
    async () => {
      const app = await signIn(owner.email)
      await app.getByRole('link', { name: 'Webhooks' }).click()
      await app.getByLabel('Webhook URL').fill(receiver.url)
      await app.getByRole('button', { name: 'Save' }).click()
      await app.getByTestId('secret').waitFor()
      const first = (await app.getByTestId('secret').textContent())!
      expect(first).toMatch(/^whsec_/)
      await app.getByRole('button', { name: 'I have stored it' }).click()
      await expect.poll(() => app.getByTestId('secret-prefix').textContent(), UI_WAIT).toBe(`${first.slice(0, 12)}…`)

      await app.getByRole('button', { name: 'Send test event' }).click()
      await expect.poll(() => app.getByRole('status').textContent(), UI_WAIT).toContain('Test event delivered: the receiver answered HTTP 200')
      expect(verifyTrawlSignature(first, receiver.hits.at(-1)!)).toBe(true)

      await app.getByRole('button', { name: 'Rotate secret' }).click()
      await app.getByRole('dialog').getByRole('button', { name: 'Rotate secret' }).click()
      await app.getByTestId('secret').waitFor()
      const second = (await app.getByTestId('secret').textContent())!
      expect(second).not.toBe(first)
      await app.getByRole('button', { name: 'I have stored it' }).click()
      await expect.poll(() => app.getByTestId('secret-prefix').textContent(), UI_WAIT).toBe(`${second.slice(0, 12)}…`)
      await app.getByRole('button', { name: 'Send test event' }).click()
      await expect.poll(() => receiver.hits.length, UI_WAIT).toBe(2)
      expect(verifyTrawlSignature(second, receiver.hits[1]!)).toBe(true)
      expect(verifyTrawlSignature(first, receiver.hits[1]!)).toBe(false)
      await expect.poll(() => app.getByTestId('deliveries-table').locator('tbody tr').count(), UI_WAIT).toBe(2)
      const cells = await app.getByTestId('deliveries-table').locator('tbody tr').first().locator('td').allTextContents()
      expect(cells.slice(1, 5)).toEqual(['webhook.test', 'delivered', '1', '200'])
      await screenshot(app, 'webhooks-1280')
      await app.context().close()
    },
    TIMEOUT,
  )

  test(
    'playground: runs a search on the account, shows JSON and Markdown, what it cost, and copy-ready code',
    async () => {
      const before = (await (await trawl.admin('GET', `/admin/v1/accounts/${owner.id}`)).json()).balance as number
      const app = await signIn(owner.email)
      await app.getByRole('link', { name: 'Playground' }).click()
      await app.getByLabel('q required').fill('coffee')
      await app.getByRole('button', { name: 'Run' }).click()
      await app.getByTestId('json-output').waitFor()
      expect(await app.getByTestId('credits-used').textContent()).toBe('1 credit')
      const json = JSON.parse((await app.getByTestId('json-output').textContent())!)
      expect(json.results).toHaveLength(10)
      expect(json.request).toMatchObject({ q: 'coffee', endpoint: 'search' })
      expect(await app.getByTestId('markdown-output').textContent()).toMatch(/^# .*coffee/im)
      const after = (await (await trawl.admin('GET', `/admin/v1/accounts/${owner.id}`)).json()).balance as number
      expect(after).toBe(before - 1)

      const curl = (await app.getByTestId('snippet').textContent())!
      expect(curl).toContain(`curl -X POST '${trawl.base}/v1/search'`)
      expect(curl).toContain(`-d '{"q":"coffee"}'`)
      // The snippet's request, sent as it says, answers like the playground did.
      const body = JSON.parse(/-d '(.*)'/.exec(curl)![1]!)
      const res = await api('/v1/search', owner.key, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
      expect((await res.json()).results[0].link).toBe(json.results[0].link)
      await app.getByRole('tab', { name: 'JavaScript' }).click()
      expect(await app.getByTestId('snippet').textContent()).toContain(`await fetch("${trawl.base}/v1/search"`)
      await app.getByRole('tab', { name: 'Python' }).click()
      expect(await app.getByTestId('snippet').textContent()).toContain('requests.post(')

      // Another vertical with its own parameters, and a combination the API refuses: num is offered
      // as its allowed values and sent as a number (as text it would be refused as no allowed value).
      await app.getByTestId('vertical').selectOption('news')
      await app.getByLabel('q required').fill('coffee')
      await app.locator('summary', { hasText: 'More parameters' }).click()
      await app.locator('#param-num').selectOption('20')
      await app.locator('#param-page').fill('2')
      await app.getByRole('button', { name: 'Run' }).click()
      await expect.poll(() => app.getByRole('alert').textContent(), UI_WAIT).toMatch(/num > 10 \(depth\) requires page=1/)
      await screenshot(app, 'playground-1280')
      await app.context().close()
    },
    TIMEOUT,
  )

  test(
    'usage after billed calls, on a phone: balance, the per-day chart by key and by endpoint, the ledger; screenshots at 390 px',
    async () => {
      const app = await signIn(owner.email, 390)
      await screenshot(app, 'keys-390')
      // The key table is there as cards: every key's name and prefix visible.
      expect(await row(app, 'default').locator('td[data-label="Prefix"]').isVisible()).toBe(true)
      await app.getByRole('link', { name: 'Usage' }).click()
      const balance = (await (await trawl.admin('GET', `/admin/v1/accounts/${owner.id}`)).json()).balance as number
      await expect.poll(() => app.getByTestId('usage-stats').textContent(), UI_WAIT).toContain(`Balance${balance} credits`)
      await app.getByTestId('usage-chart').waitFor()
      expect(await app.getByTestId('usage-chart').locator('rect').count()).toBeGreaterThan(0)
      expect(await app.locator('.legend').textContent()).toContain('default')
      expect(await app.locator('.legend').textContent()).toContain('(revoked)') // the revoked key keeps its history
      await app.getByRole('button', { name: 'By endpoint' }).click()
      await expect.poll(() => app.locator('.legend').textContent(), UI_WAIT).toContain('/v1/search')
      await expect.poll(() => app.getByTestId('ledger-table').locator('tbody tr').count(), UI_WAIT).toBeGreaterThan(3)
      expect(await app.getByTestId('ledger-table').textContent()).toContain('Credits added')
      const stats = await screenshot(app, 'usage-390')
      expect(stats.width).toBe(390)
      // Wide too.
      await app.setViewportSize({ width: 1280, height: 900 })
      await screenshot(app, 'usage-1280')
      await app.context().close()
    },
    TIMEOUT,
  )

  test(
    'work: engine health, and a monitor paused and resumed from its list',
    async () => {
      const app = await signIn(owner.email)
      const features = await app.evaluate(async () => (await (await fetch('/app/api/v1/account')).json()).features)
      await app.getByRole('link', { name: 'Work' }).click()
      await app.getByTestId('engines-table').waitFor()
      expect(await app.getByTestId('engines-table').textContent()).toContain('google')
      // Each provider's web search routes, with their state (or why this server cannot use one).
      const googleRoutes = await app.getByTestId('engine-routes').first().textContent()
      expect(googleRoutes).toMatch(/wml\s*\S+/)
      expect(googleRoutes).toContain('web')
      if (features.monitors) {
        const created = await api('/v1/monitors', owner.key, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ q: 'coffee beans', name: 'beans watch' }),
        })
        expect(created.status).toBe(200)
        const monitor = await created.json()
        await app.getByRole('region', { name: 'Monitors' }).getByRole('button', { name: 'Refresh' }).click()
        const line = app.getByTestId('monitors-table').locator('tbody tr', { hasText: 'beans watch' })
        await line.getByRole('button', { name: 'Pause' }).click()
        await expect.poll(async () => (await (await api(`/v1/monitors/${monitor.id}`, owner.key)).json()).active, UI_WAIT).toBe(false)
        await line.getByRole('button', { name: 'Resume' }).click()
        await expect.poll(async () => (await (await api(`/v1/monitors/${monitor.id}`, owner.key)).json()).active, UI_WAIT).toBe(true)
        await line.getByRole('button', { name: 'History' }).click()
        await expect.poll(() => app.getByText('No runs yet.').count(), UI_WAIT).toBe(1)
      }
      await screenshot(app, 'work-1280')
      // On a phone the providers are cards: no label squeezed, no word broken across lines.
      await app.setViewportSize({ width: 390, height: 844 })
      expect(await brokenWords(app, '[data-testid="engines-table"]')).toEqual([])
      await screenshot(app, 'work-390')
      await app.getByTestId('engines-table').screenshot({ path: join(shots, 'engines-390.png') })
      await app.setViewportSize({ width: 1280, height: 900 })
      // Signing out ends the session: the API refuses the cookie and the app shows the form.
      await app.getByRole('button', { name: 'Sign out' }).click()
      await app.getByRole('button', { name: 'Sign in' }).waitFor()
      expect(await app.evaluate(async () => (await fetch('/app/api/v1/keys')).status)).toBe(401)
      await app.context().close()
      expect(pageErrors).toEqual([])
    },
    TIMEOUT,
  )
})
