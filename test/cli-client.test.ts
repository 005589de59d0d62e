import { spawn } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { type CrawlSite, startCrawlSite } from './support/crawl-site.ts'
import { type FakeUpstream, fakeUpstream, fixture } from './support/fake-upstream.ts'
import { type LocalSite, startLocalSite } from './support/reading-site.ts'
import { serpRouter } from './support/serp-router.ts'
import { startTrawl, type Trawl } from './support/start-trawl.ts'

/** The user commands of `trawl`, run as child processes against a real server with fake engines and local sites. */

const TRAWL = new URL('../bin/trawl.mjs', import.meta.url).pathname
const COFFEE = fixture('serp/google/web-desktop/zlurad-coffee.html')
const constructed = (path: string) => readFileSync(new URL(`fixtures/google/${path}`, import.meta.url))

let upstream: FakeUpstream
let site: LocalSite
let crawlSite: CrawlSite
let trawl: Trawl
let dir: string
let key: string
/** The environment of every run: nothing of the developer's own (no TRAWL_URL, TRAWL_API_KEY, home config). */
let env: Record<string, string>

beforeAll(async () => {
  upstream = await fakeUpstream(
    serpRouter([
      { host: 'www.google.com', path: '/search', body: COFFEE },
      { host: 'news.google.com', path: '/rss/search', body: constructed('news/news-rss-ai-regulation.constructed.xml'), type: 'application/rss+xml' },
      {
        host: 'www.google.com',
        path: '/complete/search',
        body: constructed('autocomplete/autocomplete-firefox-cafe-fr.constructed.json'),
        type: 'text/javascript; charset=UTF-8',
      },
    ]),
  )
  site = await startLocalSite()
  crawlSite = await startCrawlSite()
  trawl = await startTrawl(
    { TRAWL_UPSTREAM_HOSTS: `*=${upstream.url}`, TRAWL_UPSTREAM_TIMEOUT_MS: '3000', TRAWL_ALLOW_PRIVATE_NETWORK: 'true', TRAWL_SCHEDULER_POLL_MS: '100' },
    { workers: true },
  )
  key = (await trawl.account({ plan: 'pro', credits: 500 })).key
  dir = mkdtempSync(join(tmpdir(), 'trawl-cli-client-'))
  env = { PATH: process.env.PATH ?? '', HOME: dir, TRAWL_CONFIG: join(dir, 'config', 'trawl.json') }
  // Logged in once for the whole file; the login test below uses its own config file.
  const login = await cli(['login', '--url', trawl.base, '--key', key])
  expect(login).toMatchObject({ code: 0, stdout: expect.stringContaining(`Logged in to ${trawl.base}`) })
}, 60_000)

afterAll(async () => {
  await trawl.close()
  await Promise.all([upstream.close(), site.close(), crawlSite.close()])
  rmSync(dir, { recursive: true, force: true })
})

interface Run {
  code: number | null
  stdout: string
  stderr: string
}

/** Runs `trawl ...args` (stdout is a pipe, not a terminal); resolves with the exit code and output. */
function cli(args: string[], opts: { env?: Record<string, string>; input?: string } = {}): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [TRAWL, ...args], { env: { ...env, ...opts.env }, stdio: ['pipe', 'pipe', 'pipe'] })
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
    child.stdin.end(opts.input ?? '')
  })
}

const json = (run: Run) => {
  expect(run.stderr).toBe('')
  expect(run.code).toBe(0)
  return JSON.parse(run.stdout)
}

describe('login and logout', () => {
  test('login checks the key, saves it 0600, and the saved login is used; a bad key saves nothing', async () => {
    const config = join(dir, 'own', 'config.json')
    const own = { TRAWL_CONFIG: config }
    const bad = await cli(['login', '--url', trawl.base, '--key', 'trawl_live_0123456789abcdef0123456789abcdef'], { env: own })
    expect(bad).toMatchObject({ code: 1, stdout: '', stderr: expect.stringContaining('unauthorized: invalid API key') })
    expect(existsSync(config)).toBe(false)

    // The key piped on stdin, the address from TRAWL_URL.
    const ok = await cli(['login'], { env: { ...own, TRAWL_URL: trawl.base }, input: `${key}\n` })
    expect(ok).toMatchObject({ code: 0, stdout: expect.stringContaining('plan pro') })
    expect(statSync(config).mode & 0o777).toBe(0o600)
    expect(statSync(join(dir, 'own')).mode & 0o777).toBe(0o700)
    expect(JSON.parse(readFileSync(config, 'utf8'))).toEqual({ url: trawl.base, key })

    expect(json(await cli(['account', '--json'], { env: own }))).toMatchObject({ plan: 'pro' })

    expect(await cli(['logout'], { env: own })).toMatchObject({ code: 0, stdout: `Removed ${config}.\n` })
    expect(existsSync(config)).toBe(false)
    const none = await cli(['account'], { env: own })
    expect(none).toMatchObject({ code: 2, stderr: expect.stringContaining('no API key: pass --key, set TRAWL_API_KEY, or run trawl login') })
    expect(none.stderr).toContain('usage: trawl account')
  })

  test('flags win over the environment, which wins over the saved login', async () => {
    const wrong = 'http://127.0.0.1:9'
    expect(json(await cli(['account', '--json', '--url', trawl.base], { env: { TRAWL_URL: wrong } }))).toMatchObject({ plan: 'pro' })
    const unreachable = await cli(['account'], { env: { TRAWL_URL: wrong } })
    expect(unreachable).toMatchObject({ code: 1, stdout: '', stderr: expect.stringContaining(`trawl: cannot reach ${wrong}`) })
    const otherKey = (await trawl.account({ plan: 'starter' })).key
    expect(json(await cli(['account', '--json'], { env: { TRAWL_API_KEY: otherKey } }))).toMatchObject({ plan: 'starter' })
  })
})

describe('search and verticals', () => {
  test('search prints the Markdown answer, or the JSON one with --json, with flags as parameters', async () => {
    const md = await cli(['search', 'best', 'coffee'])
    expect(md.code).toBe(0)
    expect(md.stderr).toBe('')
    expect(md.stdout).toMatch(/^#/)
    expect(md.stdout).toMatch(/\]\(https?:\/\//) // Markdown links to the results

    const body = json(
      await cli(['search', 'coffee', '--json', '--num', '20', '--country', 'de', '--include-domains', 'example.com,wikipedia.org', '--no-autocorrect']),
    )
    expect(body.request).toMatchObject({ q: 'coffee', num: 20, country: 'de', autocorrect: false, include_domains: ['example.com', 'wikipedia.org'] })
    expect(body.meta.credits_used).toBeGreaterThan(0)

    // An explicit format or fields is honoured and printed as JSON.
    const compact = json(await cli(['search', 'coffee', '--fields', 'results.title']))
    expect(Object.keys(compact.results[0])).toEqual(['title'])
  })

  test('a vertical and autocomplete', async () => {
    const news = await cli(['news', 'ai regulation'])
    expect(news).toMatchObject({ code: 0, stderr: '' })
    expect(news.stdout).toMatch(/\]\(https?:\/\//)
    const suggestions = await cli(['autocomplete', 'cafe'])
    expect(suggestions.code).toBe(0)
    expect(suggestions.stdout.trim().split('\n').length).toBeGreaterThan(1)
    expect(suggestions.stdout).not.toContain('{')
  })

  test('the server refuses bad values with its message; unknown flags and missing arguments are usage errors', async () => {
    const [badNum, unknown, missing, conflict] = await Promise.all([
      cli(['search', 'coffee', '--num', '7']),
      cli(['search', 'coffee', '--bogus']),
      cli(['search']),
      cli(['search', 'coffee', '--json', '--format', 'markdown']),
    ])
    expect(badNum).toMatchObject({
      code: 1,
      stdout: '',
      stderr: expect.stringMatching(/^trawl: invalid_request: num must be one of 10, 20, 30, 50, 100 \[req_/),
    })
    expect(unknown).toMatchObject({ code: 2, stdout: '', stderr: expect.stringContaining("Unknown option '--bogus'") })
    expect(unknown.stderr).toContain('usage: trawl search <query...> [options]')
    expect(missing).toMatchObject({ code: 2, stderr: expect.stringContaining('missing <query...>') })
    expect(conflict).toMatchObject({ code: 2, stderr: expect.stringContaining('--json and --format markdown contradict each other') })
  })

  test('a bad key prints the API error code and message and exits 1', async () => {
    const run = await cli(['search', 'coffee', '--key', 'trawl_live_0123456789abcdef0123456789abcdef'])
    expect(run).toMatchObject({ code: 1, stdout: '' })
    expect(run.stderr).toMatch(/^trawl: unauthorized: invalid API key/)
    const malformed = await cli(['account', '--key', 'nope'])
    expect(malformed).toMatchObject({ code: 1, stderr: expect.stringContaining('unauthorized: malformed API key') })
  })
})

describe('pages', () => {
  test('webpage prints the page as Markdown, or the whole answer with --json', async () => {
    const page = await cli(['webpage', `${site.url}/article/ars`])
    expect(page).toMatchObject({ code: 0, stderr: '' })
    expect(page.stdout.length).toBeGreaterThan(500)
    // The title first, as the Markdown's heading; with --format text, as the first line.
    expect(page.stdout).toMatch(/^# Just-released Minecraft exploit makes it easy to crash game servers\n\n/)
    const text = await cli(['webpage', `${site.url}/article/ars`, '--format', 'text'])
    expect(text.stdout).toMatch(/^Just-released Minecraft exploit makes it easy to crash game servers\n\n\S/)
    const body = json(await cli(['webpage', `${site.url}/article/ars`, '--json', '--format', 'text']))
    expect(body).toMatchObject({ url: `${site.url}/article/ars`, status_code: 200, text: expect.any(String) })
    expect(body.markdown).toBeUndefined()
  })

  test('extract lists failures on stderr with exit code 1; map prints one URL per line', async () => {
    const extract = await cli(['extract', `${site.url}/article/bbc`, `${site.url}/empty`])
    expect(extract.code).toBe(1)
    expect(extract.stdout).toContain(`<${site.url}/article/bbc>`)
    // One `## title` per page; the page's own headings sit below it (none at level 1 or 2 but the section's).
    expect(extract.stdout.match(/^## /gm)).toHaveLength(1)
    expect(extract.stdout).not.toMatch(/^# /m)
    expect(extract.stderr).toContain(`${site.url}/empty: empty_page`)
    const map = await cli(['map', crawlSite.url, '--limit', '5'])
    expect(map).toMatchObject({ code: 0, stderr: '' })
    const urls = map.stdout.trim().split('\n')
    expect(urls.length).toBe(5)
    expect(urls.every((u) => u.startsWith(crawlSite.url))).toBe(true)
  })

  test('crawl follows the crawl with plain progress lines when not on a terminal, then prints the pages', async () => {
    const run = await cli(['crawl', `${crawlSite.url}/`, '--limit', '3', '--max-depth', '1'])
    expect(run.code).toBe(0)
    const lines = run.stderr.trim().split('\n')
    expect(lines.every((l) => /^crawl [\w-]+: /.test(l))).toBe(true)
    expect(run.stderr).not.toContain('\r')
    expect(lines.at(-1)).toMatch(/: completed: 3 pages read, 0 failed in [\d.]+ s; 3 credits used \(stopped: limit\)$/)
    expect(run.stdout.match(/^## /gm)?.length).toBe(3)
    expect(run.stdout).toContain('Welcome home')
    // Each page's own headings sit below its `## title` (its title heading, which that repeats, dropped).
    expect(run.stdout).not.toMatch(/^# /m)

    const started = await cli(['crawl', `${crawlSite.url}/`, '--limit', '2', '--no-wait'])
    expect(started).toMatchObject({ code: 0, stderr: '' })
    const id = started.stdout.trim()
    const waited = await cli(['crawl', 'status', id, '--wait', '--json', '--quiet'])
    expect(json(waited)).toMatchObject({ id, status: 'completed', result: { pages: expect.any(Array) } })
    const status = await cli(['crawl', 'status', id])
    expect(status.stdout).toMatch(/^id\s+\S+\nstatus\s+completed\n/)
  }, 60_000)
})

describe('background work', () => {
  test('batch queues a file of queries, waits, and prints every result in order', async () => {
    const file = join(dir, 'queries.txt')
    writeFileSync(file, 'coffee\n# a comment\n\ntea\n')
    const run = await cli(['batch', 'search', '--file', file])
    expect(run.code).toBe(0)
    expect(run.stdout).toMatch(/^## 1\. coffee\n\n#/)
    expect(run.stdout).toContain('## 2. tea')
    expect(run.stderr).toMatch(/batch \(2 jobs\): 2 done, 0 failed; 1 credit used\n$/)

    // JSON lines with their own fields; a request the endpoint refuses is an error entry and exit code 1.
    const jsonl = join(dir, 'queries.jsonl')
    writeFileSync(jsonl, '{"q":"coffee","num":20}\n{"q":"beans","num":7}\n')
    const mixed = await cli(['batch', 'search', '--file', jsonl, '--json', '--country', 'de', '--quiet'])
    expect(mixed.code).toBe(1)
    const entries = JSON.parse(mixed.stdout)
    expect(entries[0]).toMatchObject({ status: 'done', result: { request: { q: 'coffee', num: 20, country: 'de' } } })
    expect(entries[1]).toMatchObject({ error: { code: 'invalid_request', message: 'num must be one of 10, 20, 30, 50, 100' } })
    expect(mixed.stderr).toContain('request 2 (beans): invalid_request: num must be one of 10, 20, 30, 50, 100')

    const queued = await cli(['batch', 'webpage', `${site.url}/article/ars`, '--no-wait'])
    expect(queued.code).toBe(0)
    const jobId = queued.stdout.trim()
    expect(json(await cli(['batch', 'status', jobId, '--wait', '--json', '--quiet']))[0]).toMatchObject({ id: jobId, status: 'done' })

    const empty = await cli(['batch', 'search'])
    expect(empty).toMatchObject({ code: 2, stderr: expect.stringContaining('no requests: pass --file FILE or <q> arguments') })
  }, 60_000)

  test('monitor create, list, show, pause, resume, runs and delete', async () => {
    const created = json(
      await cli(['monitor', 'create', 'coffee', 'beans', '--interval', 'weekly', '--no-active', '--json', '--metadata', '{"team":"growth"}']),
    )
    expect(created).toMatchObject({
      endpoint: 'search',
      active: false,
      interval_seconds: 604_800,
      metadata: { team: 'growth' },
      request: { q: 'coffee beans' },
    })
    const list = await cli(['monitor', 'list'])
    expect(list.code).toBe(0)
    expect(list.stdout).toMatch(new RegExp(`^${created.id}\\s+coffee beans\\s+search\\s+paused\\s+weekly`, 'm'))
    const shown = await cli(['monitor', 'show', created.id])
    expect(shown.stdout).toMatch(/^state\s+paused$/m)

    const run = await cli(['monitor', 'run', created.id])
    expect(run).toMatchObject({ code: 1, stderr: expect.stringContaining('invalid_request: ') })
    expect(json(await cli(['monitor', 'resume', created.id, '--json']))).toMatchObject({ active: true })
    expect(json(await cli(['monitor', 'pause', created.id, '--json']))).toMatchObject({ active: false })
    expect(json(await cli(['monitor', 'runs', created.id, '--limit', '5', '--json']))).toMatchObject({ monitor_id: created.id })

    const webpage = json(await cli(['monitor', 'create', `${site.url}/article/ars`, '--endpoint', 'webpage', '--no-active', '--json']))
    expect(webpage).toMatchObject({ endpoint: 'webpage', request: { url: `${site.url}/article/ars` } })

    const badInterval = await cli(['monitor', 'create', 'x', '--interval', 'yearly'])
    expect(badInterval).toMatchObject({ code: 1, stderr: expect.stringContaining('invalid_request: interval must be hourly, daily or weekly') })
    const badMetadata = await cli(['monitor', 'create', 'x', '--metadata', 'not json'])
    expect(badMetadata).toMatchObject({ code: 2, stderr: expect.stringContaining('--metadata must be JSON') })

    expect(await cli(['monitor', 'delete', created.id])).toMatchObject({ code: 0, stdout: `monitor ${created.id} deleted\n` })
    const gone = await cli(['monitor', 'show', created.id])
    expect(gone).toMatchObject({ code: 1, stderr: expect.stringContaining('not_found: ') })
  }, 60_000)
})

describe('account and engines', () => {
  test('account prints the balance and usage; engines the providers', async () => {
    const account = await cli(['account'])
    expect(account.code).toBe(0)
    expect(account.stdout).toMatch(/^plan\s+pro$/m)
    expect(account.stdout).toMatch(/^balance\s+[\d.]+ credits$/m)
    const engines = await cli(['engines'])
    expect(engines.stdout).toMatch(/^google \(primary\)\s+healthy/m)
    expect(json(await cli(['engines', '--json'])).engines.length).toBeGreaterThan(3)
  })
})
