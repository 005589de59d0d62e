import { randomUUID } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { launchChromium, skipWithoutChromium } from './support/browser.ts'
import { type CrawlSite, startCrawlSite } from './support/crawl-site.ts'
import { checkedScreenshot, coversText, playgroundSession, signInToDashboard } from './support/dashboard-page.ts'
import { type FakeUpstream, fakeUpstream, fixture, htmlPage } from './support/fake-upstream.ts'
import { startTrawl, type Trawl } from './support/start-trawl.ts'

/**
 * The dashboard's page tools in Chromium at 1280 and 390 px (docs/dashboard.md): the playground's
 * webpage, extract, map and crawl (live progress, then the pages); a crawl opened from the work
 * screen with its pages and their Markdown; the ledger paged; code that never breaks inside a URL;
 * the chart's last label inside the picture; sign-up when the server has it open.
 */

const COFFEE = fixture('serp/google/web-desktop/zlurad-coffee.html')
const PASSWORD = 'dashboard password 1'
const TIMEOUT = 90_000
const UI_WAIT = { timeout: 10_000 }
/** A crawl of a few local pages, on a machine that may be running other suites. */
const CRAWL_WAIT = { timeout: 30_000 }

let trawl: Trawl
let upstream: FakeUpstream
let site: CrawlSite
let browser: Browser
let owner: { id: string; key: string; email: string }
const pageErrors: string[] = []
const shots = mkdtempSync(join(tmpdir(), 'trawl-dashboard-views-'))

describe.skipIf(skipWithoutChromium)('dashboard views in Chromium: page tools, crawls, ledger, sign-up', () => {
  beforeAll(async () => {
    upstream = await fakeUpstream(htmlPage(COFFEE))
    site = await startCrawlSite()
    trawl = await startTrawl(
      {
        TRAWL_UPSTREAM_HOSTS: `*=${upstream.url}`,
        TRAWL_ALLOW_PRIVATE_NETWORK: 'true',
        TRAWL_SCHEDULER_POLL_MS: '200',
        TRAWL_SIGNUP: 'open',
        TRAWL_SIGNUP_CREDITS: '100',
        TRAWL_SIGNUP_PER_HOUR: '100',
      },
      { workers: true },
    )
    const email = `owner-${randomUUID()}@example.test`
    owner = { ...(await trawl.account({ email, password: PASSWORD, credits: 500, plan: 'enterprise', rate_limit_rps: 100 })), email }
    browser = await launchChromium()
  }, TIMEOUT)
  afterAll(async () => {
    await browser?.close()
    await trawl?.close()
    await upstream?.close()
    await site?.close()
    if (!process.env.TRAWL_KEEP_SCREENSHOTS) rmSync(shots, { recursive: true, force: true })
    else console.info(`dashboard screenshots: ${shots}`)
  })

  const signIn = (width = 1280) => signInToDashboard(browser, trawl.base, { email: owner.email, password: PASSWORD }, { width, pageErrors })
  const screenshot = (page: Page, name: string) => checkedScreenshot(page, shots, name)

  /** The page never scrolls sideways: whatever is wide scrolls inside its own box. */
  const noSidewaysScroll = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth <= innerWidth)

  const api = (path: string, init: RequestInit = {}) =>
    fetch(`${trawl.base}${path}`, {
      ...init,
      headers: { authorization: `Bearer ${owner.key}`, 'content-type': 'application/json', ...(init.headers as object) },
    })

  /** How many screen lines `text` takes inside the snippet: 1 when no line break falls inside it. */
  const linesOf = (page: Page, text: string) =>
    page.getByTestId('snippet').evaluate((pre, needle) => {
      const node = [...pre.childNodes].find((n) => n.textContent?.includes(needle))!
      const at = node.textContent!.indexOf(needle)
      const range = document.createRange()
      range.setStart(node, at)
      range.setEnd(node, at + needle.length)
      return new Set([...range.getClientRects()].map((r) => Math.round(r.top))).size
    }, text)

  async function choose(page: Page, endpoint: string) {
    await page.getByTestId('vertical').selectOption(endpoint)
  }

  test(
    'playground API: the page tools refuse bad input as their endpoints do, before anything is billed; a crawl reserves its limit on the key',
    async () => {
      const { run } = await playgroundSession(trawl.base, { email: owner.email, password: PASSWORD })
      const balance = async () => (await (await trawl.admin('GET', `/admin/v1/accounts/${owner.id}`)).json()).balance as number
      const before = await balance()
      expect(await run('webpage', { urls: [site.url] })).toMatchObject({
        status: 400,
        body: { error: { code: 'invalid_request', message: 'unknown parameter urls: use url (one page), or POST /v1/extract for up to 20 pages' } },
      })
      expect(await run('extract', { url: site.url })).toMatchObject({ status: 400, body: { error: { message: expect.stringContaining('use urls') } } })
      expect(await run('map', { url: 'not a url' })).toMatchObject({ status: 400, body: { error: { code: 'invalid_request' } } })
      expect(await run('crawl', { url: site.url, limit: 0 })).toMatchObject({ status: 400, body: { error: { message: 'limit must be between 1 and 1,000' } } })
      expect(await balance()).toBe(before)

      const started = await run('crawl', { url: `${site.url}/about`, limit: 1, sitemap: 'skip' })
      expect(started).toMatchObject({ status: 200, body: { vertical: 'crawl', credits_used: 1, json: { kind: 'crawl', credits_reserved: 1 } } })
      expect((await (await api(`/v1/crawl/${started.body.json.id}`)).json()).id).toBe(started.body.json.id)
    },
    TIMEOUT,
  )

  test(
    'playground: webpage, extract and map run on the key and show what they read; curl sent as written answers alike; the key picker is short',
    async () => {
      const app = await signIn()
      await app.getByRole('link', { name: 'Playground' }).click()
      const key = (await (await api('/v1/account')).json()).key as { name: string }
      const prefix = owner.key.slice(0, 17)
      expect(await app.getByLabel('Billed on key').locator('option').first().textContent()).toBe(`${key.name} · ${prefix}…`)

      await choose(app, 'webpage')
      await app.getByLabel('url required').fill(`${site.url}/blog/post-1`)
      await app.getByRole('button', { name: 'Run' }).click()
      await app.getByTestId('json-output').waitFor()
      expect(await app.getByTestId('credits-used').textContent()).toBe('1 credit')
      expect(JSON.parse((await app.getByTestId('json-output').textContent())!)).toMatchObject({
        url: `${site.url}/blog/post-1`,
        title: 'First post about gardening',
      })
      expect(await app.getByTestId('markdown-output').textContent()).toContain('gardening paragraph 1')
      const curl = (await app.getByTestId('snippet').textContent())!
      expect(curl).toContain(`curl -X POST '${trawl.base}/v1/webpage'`)
      const sent = await api('/v1/webpage', { method: 'POST', body: /-d '(.*)'/.exec(curl)![1]! })
      expect(sent.status).toBe(200)
      expect((await sent.json()).title).toBe('First post about gardening')

      await choose(app, 'extract')
      await app.getByLabel('urls required').fill(`${site.url}/blog/post-1, ${site.url}/blog/post-2`)
      await app.getByRole('button', { name: 'Run' }).click()
      await expect.poll(() => app.getByTestId('credits-used').textContent(), UI_WAIT).toBe('2 credits')
      const extracted = JSON.parse((await app.getByTestId('json-output').textContent())!)
      expect(extracted.results.map((r: { title: string }) => r.title)).toEqual(['First post about gardening', 'Second post about cooking'])
      expect(await app.getByTestId('markdown-output').textContent()).toContain('cooking paragraph 1')
      expect(await app.getByTestId('snippet').textContent()).toContain(`"urls":["${site.url}/blog/post-1","${site.url}/blog/post-2"]`)

      await choose(app, 'map')
      await app.getByLabel('url required').fill(site.url)
      await app.getByRole('button', { name: 'Run' }).click()
      await expect.poll(async () => JSON.parse((await app.getByTestId('json-output').textContent())!).request?.url ?? null, UI_WAIT).toBeTruthy()
      const mapped = JSON.parse((await app.getByTestId('json-output').textContent())!)
      expect(mapped.results.map((r: { url: string }) => r.url)).toContain(`${site.url}/blog/post-2`)
      expect(await app.getByTestId('markdown-output').textContent()).toBe('/v1/map answers JSON only.')
      await screenshot(app, 'playground-map-1280')
      await app.context().close()
    },
    TIMEOUT,
  )

  test(
    'playground crawl at 390 px: progress while it runs, then its pages and a page’s Markdown; the curl snippet scrolls and never breaks a URL',
    async () => {
      const app = await signIn(390)
      await app.getByRole('link', { name: 'Playground' }).click()
      expect(await app.getByLabel('Billed on key').locator('option').first().textContent()).toBe(`default · ${owner.key.slice(0, 17)}…`)
      await choose(app, 'crawl')
      await app.getByLabel('url required').fill(`${site.url}/blog/`)
      await app.locator('summary', { hasText: 'More parameters' }).click()
      await app.locator('#param-limit').fill('3')
      await app.locator('#param-max_depth').fill('1')
      await app.locator('#param-sitemap').selectOption('skip')

      // The snippet: one screen line per command line, however narrow the screen; the pre scrolls.
      const curl = (await app.getByTestId('snippet').textContent())!
      expect(curl).toContain(`curl -X POST '${trawl.base}/v1/crawl'`)
      expect(curl).toContain(`"$CRAWL_ID"`)
      expect(await linesOf(app, `${trawl.base}/v1/crawl`)).toBe(1)
      expect(await linesOf(app, `"url":"${site.url}/blog/"`)).toBe(1)
      expect(await app.getByTestId('snippet').evaluate((pre) => pre.scrollWidth > pre.clientWidth)).toBe(true)
      expect(await noSidewaysScroll(app)).toBe(true)
      // The Copy button sits above the snippet on a phone, over none of its text.
      expect(await coversText(app, '.snippet .copy', '[data-testid="snippet"]')).toBe(false)

      await app.getByRole('button', { name: 'Run' }).click()
      await app.getByTestId('crawl-view').waitFor()
      expect(await app.getByTestId('credits-used').textContent()).toBe('3 credits reserved')
      expect(await app.getByRole('progressbar').count()).toBe(1)
      await expect.poll(() => app.getByTestId('crawl-view').getAttribute('data-status'), CRAWL_WAIT).toBe('completed')
      const rows = app.getByTestId('crawl-pages').locator('tbody tr')
      await expect.poll(() => rows.count(), UI_WAIT).toBe(3)
      expect(await rows.first().locator('td[data-label="Title"]').textContent()).toBe('Blog index')
      expect(await rows.first().locator('td[data-label="Status"]').textContent()).toBe('read')
      await rows
        .first()
        .getByRole('button', { name: `${site.url}/blog/` })
        .click()
      expect(await app.getByTestId('page-markdown').textContent()).toContain('Blog index paragraph 1')
      await screenshot(app, 'playground-crawl-page-390')
      await app.getByRole('dialog').getByRole('button', { name: 'Close' }).click()
      expect(await noSidewaysScroll(app)).toBe(true)
      await screenshot(app, 'playground-crawl-390')
      await app.context().close()
    },
    TIMEOUT,
  )

  for (const width of [1280, 390]) {
    test(
      `work at ${width} px: a crawl opens from the list to its status, pages and each page’s Markdown`,
      async () => {
        const started = await api('/v1/crawl', { method: 'POST', body: JSON.stringify({ url: `${site.url}/docs/guide`, limit: 2, sitemap: 'skip' }) })
        expect(started.status).toBe(202)
        const { id } = await started.json()
        const app = await signIn(width)
        await app.getByRole('link', { name: 'Work' }).click()
        const line = app
          .getByTestId('crawls-table')
          .locator('tbody tr', { hasText: `${site.url}/docs/guide` })
          .first()
        await line.getByRole('link', { name: 'Open' }).click()
        await app.getByTestId('crawl-view').waitFor()
        expect(new URL(app.url()).pathname).toBe(`/app/work/crawls/${id}`)
        expect(await app.getByTestId('crawl-url').textContent()).toBe(`${site.url}/docs/guide`)
        await expect.poll(() => app.getByTestId('crawl-view').getAttribute('data-status'), CRAWL_WAIT).toBe('completed')
        const rows = app.getByTestId('crawl-pages').locator('tbody tr')
        await expect.poll(() => rows.count(), UI_WAIT).toBe(2)
        const guide = rows.filter({ hasText: 'User guide' })
        expect(await guide.locator('td[data-label="URL"]').textContent()).toBe(`${site.url}/docs/guide`)
        await guide.getByRole('button').click()
        expect(await app.getByRole('dialog').getByRole('heading', { level: 2 }).textContent()).toBe('User guide')
        expect(await app.getByTestId('page-markdown').textContent()).toContain('User guide paragraph 3')
        await app.keyboard.press('Escape')
        expect(await noSidewaysScroll(app)).toBe(true)
        await screenshot(app, `crawl-${width}`)
        // The page's own address opens it again (a reload, a shared link).
        await app.reload()
        await expect.poll(() => app.getByTestId('crawl-pages').locator('tbody tr').count(), UI_WAIT).toBe(2)
        await app.getByRole('link', { name: 'Back to work' }).click()
        await app.getByTestId('crawls-table').waitFor()
        await app.context().close()
      },
      TIMEOUT,
    )
  }

  test(
    'usage: the ledger is paged (10 entries, next and previous) and short on a phone; the chart’s last day label is inside the picture',
    async () => {
      for (let i = 0; i < 12; i++) expect((await api(`/v1/search?q=ledger${i}`)).status).toBe(200)
      const app = await signIn(390)
      await app.getByRole('link', { name: 'Usage' }).click()
      const table = app.getByTestId('ledger-table')
      await expect.poll(() => table.locator('tbody tr').count(), UI_WAIT).toBe(10)
      const first = await table.locator('tbody tr').allTextContents()
      expect(await app.getByTestId('ledger-range').textContent()).toBe('Entries 1–10')
      // Ten entries on a phone: about a screen and a half, not thousands of pixels.
      const height = await app.getByRole('region', { name: 'Ledger' }).evaluate((el) => el.getBoundingClientRect().height)
      expect(height).toBeLessThan(1400)
      console.info(`ledger card at 390 px, 10 entries: ${Math.round(height)} px tall`)
      await app.getByRole('button', { name: 'Next' }).click()
      await expect.poll(() => app.getByTestId('ledger-range').textContent(), UI_WAIT).toBe('Entries 11–20')
      const second = await table.locator('tbody tr').allTextContents()
      expect(second).toHaveLength(10)
      expect(second.some((r) => first.includes(r))).toBe(false)
      await app.getByRole('button', { name: 'Previous' }).click()
      await expect.poll(() => table.locator('tbody tr').allTextContents(), UI_WAIT).toEqual(first)
      expect(await app.getByRole('button', { name: 'Previous' }).isDisabled()).toBe(true)

      await app.getByTestId('usage-chart').waitFor()
      const inside = () =>
        app.getByTestId('usage-chart').evaluate((svg) => {
          const box = svg.getBoundingClientRect()
          const labels = [...svg.querySelectorAll('text')].map((t) => t.getBoundingClientRect())
          const last = labels.reduce((a, b) => (b.right > a.right ? b : a))
          return { right: last.right, edge: box.right, left: Math.min(...labels.map((l) => l.left)), start: box.left }
        })
      const narrow = await inside()
      expect(narrow.right).toBeLessThanOrEqual(narrow.edge)
      expect(narrow.left).toBeGreaterThanOrEqual(narrow.start)
      expect(await noSidewaysScroll(app)).toBe(true)
      await screenshot(app, 'usage-390')

      await app.setViewportSize({ width: 1280, height: 900 })
      await expect.poll(() => table.locator('tbody tr').count(), UI_WAIT).toBe(10)
      const wide = await inside()
      expect(wide.right).toBeLessThanOrEqual(wide.edge)
      await screenshot(app, 'usage-1280')
      await app.context().close()
    },
    TIMEOUT,
  )

  test(
    'sign-up (TRAWL_SIGNUP=open): the sign-in screen offers it; the new account’s first key is shown once and works',
    async () => {
      for (const width of [390, 1280]) {
        const context = await browser.newContext({ viewport: { width, height: 844 } })
        const page = await context.newPage()
        page.on('pageerror', (e) => pageErrors.push(e.message))
        await page.goto(`${trawl.base}/app`)
        await page.getByRole('button', { name: 'Create an account' }).click()
        await page.getByRole('heading', { name: 'Create your account' }).waitFor()
        const email = `new-${randomUUID()}@example.test`
        await page.getByLabel('Email').fill(email)
        await page.getByLabel('Password (8 to 256 characters)').fill('short')
        await page.getByRole('button', { name: 'Create account' }).click()
        // The browser's own check (minlength) stops it before the server is asked.
        expect(await page.getByLabel('Password (8 to 256 characters)').evaluate((el: HTMLInputElement) => el.validity.tooShort)).toBe(true)
        await page.getByLabel('Password (8 to 256 characters)').fill('a good new password')
        await page.getByRole('button', { name: 'Create account' }).click()
        const secret = (await page.getByTestId('secret').textContent())!
        expect(secret).toMatch(/^trawl_live_/)
        expect(await page.getByTestId('signup-summary').textContent()).toContain('free plan with 100 credits')
        await screenshot(page, `signup-${width}`)
        await page.getByRole('button', { name: 'I have stored it' }).click()
        await page.getByTestId('keys-table').waitFor()
        expect(await page.locator('.who .badge').textContent()).toBe('owner')
        const account = await fetch(`${trawl.base}/v1/account`, { headers: { authorization: `Bearer ${secret}` } })
        expect(await account.json()).toMatchObject({ plan: 'free', balance: 100 })
        // The same mailbox again within the hour is refused inline (sign-up's own budget).
        await page.getByRole('button', { name: 'Sign out' }).click()
        await page.getByRole('button', { name: 'Create an account' }).click()
        await page.getByLabel('Email').fill(email)
        await page.getByLabel('Password (8 to 256 characters)').fill('a good new password')
        await page.getByRole('button', { name: 'Create account' }).click()
        await expect.poll(() => page.getByRole('alert').textContent(), UI_WAIT).toMatch(/too many sign-ups/i)
        await page.getByRole('button', { name: 'Sign in' }).click()
        await page.getByRole('heading', { name: 'Sign in to your dashboard' }).waitFor()
        await context.close()
      }
      expect(pageErrors).toEqual([])
    },
    TIMEOUT,
  )
})
