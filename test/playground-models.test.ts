import { randomUUID } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { launchChromium, skipWithoutChromium } from './support/browser.ts'
import { checkedScreenshot, playgroundSession, signInToDashboard } from './support/dashboard-page.ts'
import { type ChatRequestBody, type FakeModel, fakeModel } from './support/fake-model.ts'
import type { FakeUpstream } from './support/fake-upstream.ts'
import { KETTLE_QUESTION, PRODUCT_PAGES, PRODUCT_RESULTS, PRODUCT_SCHEMA, searchWorld, searchWorldEnv } from './support/search-world.ts'
import { startTrawl, type Trawl } from './support/start-trawl.ts'

/**
 * The dashboard playground with the operator's model (test/support/fake-model.ts): context's
 * `answer`, webpage and extract `schema` (typed as JSON), and research (started, waited for, its
 * report shown), through the playground API and in Chromium, each billed as its REST call.
 */

const PASSWORD = 'dashboard password 1'
const TIMEOUT = 90_000
const UI_WAIT = { timeout: 15_000 }
const SCHEMA = PRODUCT_SCHEMA
/** The product on the page the model was sent, as a model would fill SCHEMA. */
const fromPage = (body: ChatRequestBody) => {
  const user = body.messages.find((m) => m.role === 'user')!.content
  const name = /Aurora|Helios/.exec(user)?.[0] ?? 'unknown'
  return JSON.stringify({ data: { name, price: Number(/costs ([\d.]+) euros/.exec(user)?.[1] ?? 0) }, basis: { name: [1] } })
}

let site: FakeUpstream
let searx: FakeUpstream
let model: FakeModel
let trawl: Trawl
let owner: { id: string; key: string; email: string }
let browser: Browser | undefined
const shots = mkdtempSync(join(tmpdir(), 'trawl-playground-models-'))

beforeAll(async () => {
  ;({ site, searx } = await searchWorld(PRODUCT_PAGES, () => PRODUCT_RESULTS))
  model = await fakeModel()
  trawl = await startTrawl(
    {
      ...searchWorldEnv(searx),
      TRAWL_SCHEDULER_POLL_MS: '200',
      TRAWL_LLM_URL: model.url,
      TRAWL_LLM_TIMEOUT_MS: '1500',
    },
    { workers: true },
  )
  const email = `owner-${randomUUID()}@example.test`
  owner = { ...(await trawl.account({ email, password: PASSWORD, credits: 200, plan: 'enterprise', rate_limit_rps: 100 })), email }
}, TIMEOUT)
afterAll(async () => {
  await browser?.close()
  await trawl?.close()
  await model?.close()
  await searx?.close()
  await site?.close()
  if (!process.env.TRAWL_KEEP_SCREENSHOTS) rmSync(shots, { recursive: true, force: true })
  else console.info(`playground screenshots: ${shots}`)
})

const balance = async () => (await (await trawl.admin('GET', `/admin/v1/accounts/${owner.id}`)).json()).balance as number

const playground = () => playgroundSession(trawl.base, { email: owner.email, password: PASSWORD })

describe('playground API with a model', () => {
  test('research is offered with its parameters; it is started, waited for and shown with its cited report; billed as POST /v1/research', async () => {
    const { run, offered } = await playground()
    const meta = await offered()
    const research = meta.verticals.find((v: { name: string }) => v.name === 'research')
    expect(research).toMatchObject({ path: '/v1/research', markdown: true, required: ['input'] })
    expect(Object.keys(research.params)).toEqual(['input', 'output_schema', 'max_searches', 'max_pages', 'max_tokens', 'engine', 'webhook_url'])

    const before = await balance()
    expect(await run('research', { input: KETTLE_QUESTION, max_searches: 11 })).toMatchObject({
      status: 400,
      body: { error: { code: 'invalid_request', message: expect.stringContaining('max_searches must be between 1 and 10') } },
    })
    const done = await run('research', { input: KETTLE_QUESTION, engine: 'searxng', max_searches: 1, max_pages: 2, max_tokens: 2000 })
    expect(done.status).toBe(200)
    // Plan 1 + search 1 + 2 pages + report 1: the whole hold used, nothing left to refund.
    expect(done.body).toMatchObject({ vertical: 'research', credits_used: 5, credits_remaining: before - 5, json: { kind: 'research', status: 'completed' } })
    expect(done.body.markdown).toMatch(/electric kettle \[1\]\.\n\n## Sources\n\n\[1\] \[Aurora electric kettle\]\(http:\/\/127\.0\.0\.1:\d+\/kettle\)$/)
    expect(await balance()).toBe(before - 5)
  })

  test('context with answer, and webpage with schema, run as their REST calls', async () => {
    const { run } = await playground()
    const answered = await run('context', { q: KETTLE_QUESTION, engine: 'searxng', num: 1, answer: true })
    expect(answered.status).toBe(200)
    expect(answered.body.json.answer.text).toMatch(/\[1\]\.$/)
    expect(answered.body.markdown).toContain(answered.body.json.answer.text)
    // 1 search + 1 page + 1 model call.
    expect(answered.body.credits_used).toBe(3)
    model.json = fromPage
    try {
      const filled = await run('webpage', { url: `${site.url}/kettle`, schema: SCHEMA })
      expect(filled).toMatchObject({ status: 200, body: { credits_used: 2, json: { data: { name: 'Aurora', price: 39.5 } } } })
    } finally {
      model.json = null
    }
  })
})

describe.skipIf(skipWithoutChromium)('playground screen with a model, in Chromium', () => {
  const signIn = async () => {
    browser ??= await launchChromium()
    return signInToDashboard(browser, trawl.base, { email: owner.email, password: PASSWORD })
  }
  const screenshot = (p: Page, name: string) => checkedScreenshot(p, shots, name)
  /** Opens "More parameters" unless it is open already (it stays open from one endpoint to the next). */
  const openMore = async (app: Page) => {
    const open = await app
      .locator('details.more')
      .first()
      .evaluate((d) => (d as HTMLDetailsElement).open)
    if (!open) await app.locator('summary', { hasText: 'More parameters' }).click()
  }
  const runIt = async (app: Page) => {
    await app.getByRole('button', { name: 'Run' }).click()
    await app.getByTestId('json-output').waitFor()
  }

  test(
    'context’s answer is a choice, schema is typed as JSON, research shows its report and polls in its snippet',
    async () => {
      const app = await signIn()
      await app.getByRole('link', { name: 'Playground' }).click()

      await app.getByTestId('vertical').selectOption('context')
      await app.getByLabel('q required').fill(KETTLE_QUESTION)
      await openMore(app)
      expect(await app.locator('#param-answer option').allTextContents()).toEqual(['(default)', 'true', 'false', 'basic', 'advanced'])
      await app.locator('#param-answer').selectOption('true')
      await app.locator('#param-engine').fill('searxng')
      await app.locator('#param-num').fill('1')
      expect(await app.getByTestId('snippet').textContent()).toContain('"answer":true')
      await runIt(app)
      await expect.poll(async () => JSON.parse((await app.getByTestId('json-output').textContent())!).answer?.text ?? null, UI_WAIT).toMatch(/\[1\]\.$/)
      expect(await app.getByTestId('credits-used').textContent()).toBe('3 credits')

      model.json = fromPage
      try {
        await app.getByTestId('vertical').selectOption('webpage')
        await app.getByLabel('url required').fill(`${site.url}/kettle`)
        await openMore(app)
        await app.locator('#param-schema').fill(JSON.stringify(SCHEMA, null, 2))
        expect(await app.getByTestId('snippet').textContent()).toContain(`"schema":${JSON.stringify(SCHEMA)}`)
        await app.getByRole('button', { name: 'Run' }).click()
        await expect
          .poll(async () => JSON.parse((await app.getByTestId('json-output').textContent())!).data ?? null, UI_WAIT)
          .toEqual({ name: 'Aurora', price: 39.5 })
        await screenshot(app, 'playground-schema-1280')
        // Text that is not JSON is sent as written, and the API's message says what is wrong.
        await app.locator('#param-schema').fill('{name: string}')
        await app.getByRole('button', { name: 'Run' }).click()
        await expect.poll(() => app.getByRole('alert').textContent(), UI_WAIT).toContain('schema must be a JSON Schema object')
      } finally {
        model.json = null
      }

      await app.getByTestId('vertical').selectOption('research')
      await app.getByLabel('input required').fill(KETTLE_QUESTION)
      await openMore(app)
      await app.locator('#param-engine').fill('searxng')
      await app.locator('#param-max_searches').fill('1')
      await app.locator('#param-max_pages').fill('2')
      const curl = (await app.getByTestId('snippet').textContent())!
      expect(curl).toContain(`curl -X POST '${trawl.base}/v1/research'`)
      expect(curl).toContain('"$RESEARCH_ID"')
      await runIt(app)
      await expect.poll(() => app.getByTestId('markdown-output').textContent(), UI_WAIT).toContain('## Sources')
      expect(await app.getByTestId('credits-used').textContent()).toBe('5 credits')
      expect(await app.getByTestId('pg-summary').textContent()).toContain('completed; the unused part of the hold was refunded')
      expect(JSON.parse((await app.getByTestId('json-output').textContent())!)).toMatchObject({ kind: 'research', status: 'completed' })
      await screenshot(app, 'playground-research-1280')
      await app.context().close()
    },
    TIMEOUT,
  )
})
