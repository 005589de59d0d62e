import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { expectBooksBalanced } from './support/books.ts'
import { type ChatRequestBody, type FakeModel, fakeModel } from './support/fake-model.ts'
import type { FakeUpstream } from './support/fake-upstream.ts'
import { KETTLE_QUESTION, PRODUCT_PAGES, PRODUCT_RESULTS, PRODUCT_SCHEMA, searchWorld, searchWorldEnv } from './support/search-world.ts'
import { startTrawl, type Trawl } from './support/start-trawl.ts'

/**
 * `trawl research` and `trawl webpage|extract --schema`, run as child processes against a real
 * server whose model is test/support/fake-model.ts, with a loopback SearXNG and site.
 */

const TRAWL = new URL('../bin/trawl.mjs', import.meta.url).pathname
const SCHEMA = JSON.stringify(PRODUCT_SCHEMA)

let site: FakeUpstream
let searx: FakeUpstream
let model: FakeModel
let trawl: Trawl
let dir: string
let env: Record<string, string>

beforeAll(async () => {
  ;({ site, searx } = await searchWorld(PRODUCT_PAGES, () => PRODUCT_RESULTS))
  model = await fakeModel()
  trawl = await startTrawl(
    {
      ...searchWorldEnv(searx),
      TRAWL_SCHEDULER_POLL_MS: '200',
      TRAWL_LLM_URL: model.url,
      // Long enough that a cancel (a process start away) always lands while the model is still asked.
      TRAWL_LLM_TIMEOUT_MS: '20000',
    },
    { workers: true },
  )
  dir = mkdtempSync(join(tmpdir(), 'trawl-cli-research-'))
  env = { PATH: process.env.PATH ?? '', HOME: dir, TRAWL_CONFIG: join(dir, 'none.json'), TRAWL_URL: trawl.base }
}, 60_000)
afterAll(async () => {
  await trawl?.close()
  await model?.close()
  await searx?.close()
  await site?.close()
  rmSync(dir, { recursive: true, force: true })
})

interface Run {
  code: number | null
  stdout: string
  stderr: string
}

/** `trawl ...args` with stdout and stderr as pipes (not a terminal: progress is plain lines). */
function cli(key: string, args: string[]): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [TRAWL, ...args], { env: { ...env, TRAWL_API_KEY: key }, stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (d) => {
      stdout += d
    })
    child.stderr.on('data', (d) => {
      stderr += d
    })
    child.on('error', reject)
    child.on('close', (code) => resolve({ code, stdout, stderr }))
  })
}

const account = async () => trawl.account({ plan: 'enterprise', rate_limit_rps: 1000, credits: 100 })
const balance = async (key: string) =>
  (await (await fetch(`${trawl.base}/v1/account`, { headers: { authorization: `Bearer ${key}` } })).json()).balance as number
const RESEARCH = ['research', KETTLE_QUESTION, '--engine', 'searxng', '--max-searches', '1', '--max-pages', '2', '--max-tokens', '2000']

describe('trawl research', () => {
  test('follows the job from its events (steps on stderr), then prints the cited report and its sources', async () => {
    const { id, key } = await account()
    const run = await cli(key, RESEARCH)
    expect(run.code, run.stderr).toBe(0)
    expect(run.stdout).toMatch(/electric kettle \[1\]\.\n\n## Sources\n\n\[1\] Aurora electric kettle <http:\/\/127\.0\.0\.1:\d+\/kettle>\n$/)
    const lines = run.stderr.trim().split('\n')
    expect(lines.every((l) => /^research [\w-]+: /.test(l))).toBe(true)
    expect(run.stderr).toContain('planned 1 sub-query')
    expect(run.stderr).toContain(`searched “${KETTLE_QUESTION}”: 2 pages read`)
    expect(lines.at(-1)).toMatch(/: completed: 1 searches, 2 pages read, \d+ sources; 5 credits used of 5 held$/)
    // Plan 1 + search 1 + 2 pages + report 1.
    expect(await balance(key)).toBe(95)
    await expectBooksBalanced(trawl, id)
  })

  test('--no-wait prints the id; research get prints the report, --wait follows, --json the job', async () => {
    const { key } = await account()
    const started = await cli(key, [...RESEARCH, '--no-wait'])
    expect(started).toMatchObject({ code: 0, stderr: '' })
    const id = started.stdout.trim()
    expect(id).toMatch(/^[0-9a-f-]{36}$/)
    const waited = await cli(key, ['research', 'get', id, '--wait'])
    expect(waited.code, waited.stderr).toBe(0)
    expect(waited.stdout).toContain('## Sources')
    const again = await cli(key, ['research', 'get', id])
    expect(again).toMatchObject({ code: 0, stdout: waited.stdout })
    const json = JSON.parse((await cli(key, ['research', 'get', id, '--json'])).stdout)
    expect(json).toMatchObject({ id, kind: 'research', status: 'completed', credits_used: 5, request: { input: KETTLE_QUESTION, max_searches: 1 } })
  })

  test('--output-schema prints the data as JSON; --json prints the whole job', async () => {
    const { key } = await account()
    model.json = () => JSON.stringify({ data: { boil_minutes: 3 }, basis: { boil_minutes: [1] } })
    try {
      const schema = JSON.stringify({ type: 'object', properties: { boil_minutes: { type: 'number' } }, required: ['boil_minutes'] })
      const data = await cli(key, [...RESEARCH, '--output-schema', schema, '--quiet'])
      expect(data).toMatchObject({ code: 0, stderr: '', stdout: '{\n  "boil_minutes": 3\n}\n' })
      const job = JSON.parse((await cli(key, [...RESEARCH, '--output-schema', schema, '--json', '-q'])).stdout)
      expect(job).toMatchObject({ status: 'completed', result: { format: 'json', data: { boil_minutes: 3 }, basis: { boil_minutes: [1] } } })
    } finally {
      model.json = null
    }
  })

  test('research cancel stops a running job, refunded what it did not use', async () => {
    const { id: accountId, key } = await account()
    // The planning call never answers (until the model's 20 s timeout): the job is still running when canceled.
    model.behaviour = 'hang'
    try {
      const id = (await cli(key, [...RESEARCH, '--no-wait'])).stdout.trim()
      const canceled = await cli(key, ['research', 'cancel', id])
      expect(canceled.code, canceled.stderr).toBe(0)
      expect(canceled.stdout).toMatch(new RegExp(`^research ${id}: (canceled; 0 credits used of 5 held|cancel requested; it stops within a second)`))
      const waited = await cli(key, ['research', 'get', id, '--wait', '--json'])
      expect(waited.code).toBe(1)
      expect(JSON.parse(waited.stdout)).toMatchObject({ id, status: 'canceled' })
      expect(waited.stderr).toContain(`research ${id} canceled`)
    } finally {
      model.behaviour = 'rules'
    }
    // Nothing was used before the cancel: the model call in flight was aborted, not billed.
    expect(await balance(key)).toBe(100)
    expect(await expectBooksBalanced(trawl, accountId)).toBe(100)
  })

  test('mistakes: the server refuses bad values by name (exit 1); a missing input or bad JSON is a usage error (exit 2)', async () => {
    const { key } = await account()
    const bad = await cli(key, [...RESEARCH, '--max-searches', '11'])
    expect(bad).toMatchObject({ code: 1, stdout: '', stderr: expect.stringContaining('invalid_request: max_searches must be between 1 and 10') })
    const missing = await cli(key, ['research'])
    expect(missing).toMatchObject({ code: 2, stderr: expect.stringContaining('missing <input...>') })
    const notJson = await cli(key, [...RESEARCH, '--output-schema', '{type: object}'])
    expect(notJson).toMatchObject({ code: 2, stderr: expect.stringContaining('--output-schema must be JSON') })
    expect(await balance(key)).toBe(100)
  })
})

describe('trawl webpage and extract with --schema', () => {
  /** The product on the page the model was sent, as a model would fill the schema. */
  const fromPage = (body: ChatRequestBody) => {
    const user = body.messages.find((m) => m.role === 'user')!.content
    const name = /Aurora|Helios/.exec(user)?.[0] ?? 'unknown'
    return JSON.stringify({ data: { name, price: Number(/costs ([\d.]+) euros/.exec(user)?.[1] ?? 0) }, basis: { name: [1] } })
  }

  test('print the data the model filled as JSON; --json the whole answer with basis', async () => {
    const { key } = await account()
    model.json = fromPage
    try {
      const one = await cli(key, ['webpage', `${site.url}/kettle`, '--schema', SCHEMA, '--prompt', 'the product on sale'])
      expect(one).toMatchObject({ code: 0, stderr: '' })
      expect(JSON.parse(one.stdout)).toEqual({ name: 'Aurora', price: 39.5 })
      const full = JSON.parse((await cli(key, ['webpage', `${site.url}/kettle`, '--schema', SCHEMA, '--json'])).stdout)
      expect(full.basis.name[0]).toMatchObject({ n: 1, url: `${site.url}/kettle` })
      const many = await cli(key, ['extract', `${site.url}/kettle`, `${site.url}/toaster`, `${site.url}/missing`, '--schema', SCHEMA])
      expect(many.code).toBe(1) // the missing page
      expect(JSON.parse(many.stdout)).toEqual([
        { url: `${site.url}/kettle`, data: { name: 'Aurora', price: 39.5 } },
        { url: `${site.url}/toaster`, data: { name: 'Helios', price: 59 } },
      ])
      expect(many.stderr).toContain(`${site.url}/missing`)
    } finally {
      model.json = null
    }
    // Each page read (1) and its model call (1): 2 + 2 + 2 × 2.
    expect(await balance(key)).toBe(100 - 2 - 2 - 4)
  })
})
