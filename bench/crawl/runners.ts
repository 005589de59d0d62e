import { type ChildProcess, spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'

/**
 * Each crawler runs in a process of its own, so that its peak RSS is its own: Trawl as `npm start`
 * runs it (`node bin/trawl.mjs serve`, SQLite in a temp dir, background workers on), Crawlee's
 * CheerioCrawler in `crawlee.child.ts`. The site is served by the bench process.
 */

/** What one crawler run produced. */
export interface CrawlRun {
  pages: number
  failed: number
  /** Trawl: from POST /v1/crawl to the poll that sees it ended. Crawlee: crawler.run(). */
  ms: number
  /** Peak resident set of the crawler's process (VmHWM), MB. */
  peakRssMb: number
  /** CPU time (user + system, every thread) the crawler's process spent over `ms`: less swayed by a busy machine than the clock. */
  cpuMs: number
  /** Characters of text or Markdown read, to show both really read each page. */
  chars: number
  note: string
}

export const CONCURRENCY = 5
export const LIMIT = 1000
export const MAX_DEPTH = 10
const ADMIN_TOKEN = 'bench-admin-token-0123456789'
const ROOT = resolve(import.meta.dirname, '../..')

async function freePort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  const port = (server.address() as { port: number }).port
  await new Promise<void>((r) => server.close(() => r()))
  return port
}

/** Peak RSS of a live process from /proc (Linux), MB; 0 where there is no /proc. */
function peakRssMb(pid: number): number {
  try {
    const kb = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]
    return kb ? Number(kb) / 1024 : 0
  } catch {
    return 0
  }
}

/** CPU time of a live process so far (utime + stime from /proc, Linux), ms; 0 where there is no /proc. */
function cpuMsOf(pid: number): number {
  try {
    // Fields after the command name (which may hold spaces): state is the 1st, utime the 12th, stime the 13th.
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS
  } catch {
    return 0
  }
}
/** USER_HZ: 100 on every Linux this runs on. */
const CLOCK_TICKS = 100

async function waitForServer(base: string, child: ChildProcess, output: () => string) {
  const deadline = Date.now() + 30_000
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`trawl serve exited (${child.exitCode}):\n${output()}`)
    try {
      if ((await fetch(`${base}/livez`)).ok) return
    } catch {}
    await new Promise((r) => setTimeout(r, 100))
  }
  throw new Error(`trawl serve did not start:\n${output()}`)
}

/**
 * Trawl as a client sees it: POST /v1/crawl and polling GET /v1/crawl/{id} every 50 ms (so the
 * measured time overstates the crawl by at most that). No sitemap is offered by the site, so
 * `sitemap: 'skip'` only saves the probe requests for one (Crawlee does not look for sitemaps).
 */
export async function runTrawl(siteUrl: string, env: Record<string, string> = {}): Promise<CrawlRun> {
  const dir = mkdtempSync(join(tmpdir(), 'trawl-bench-'))
  const port = await freePort()
  const base = `http://127.0.0.1:${port}`
  let output = ''
  // BENCH_NODE_ARGS: node flags for the server, e.g. --cpu-prof to see where its time goes.
  const nodeArgs = (process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean)
  const child = spawn(process.execPath, [...nodeArgs, 'bin/trawl.mjs', 'serve'], {
    cwd: ROOT,
    env: {
      ...process.env,
      TRAWL_DATABASE_URL: `sqlite:${join(dir, 'trawl.db')}`,
      TRAWL_ADMIN_TOKEN: ADMIN_TOKEN,
      TRAWL_PORT: String(port),
      TRAWL_HOST: '127.0.0.1',
      TRAWL_ALLOW_PRIVATE_NETWORK: 'true',
      TRAWL_LOG_LEVEL: 'warn',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  child.stdout!.on('data', (d) => (output = (output + d).slice(-4000)))
  child.stderr!.on('data', (d) => (output = (output + d).slice(-4000)))
  try {
    await waitForServer(base, child, () => output)
    const admin = await fetch(`${base}/admin/v1/accounts`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'bench@example.test', plan: 'enterprise', rate_limit_rps: 100000, credits: 100000 }),
    })
    if (admin.status !== 201) throw new Error(`account create failed: ${admin.status} ${await admin.text()}`)
    const key = ((await admin.json()) as { key: { secret: string } }).key.secret
    const call = (method: string, path: string, body?: unknown) =>
      fetch(`${base}${path}`, {
        method,
        headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      })
    const cpuStart = cpuMsOf(child.pid!)
    const started = performance.now()
    const res = await call('POST', '/v1/crawl', { url: `${siteUrl}/`, limit: LIMIT, max_depth: MAX_DEPTH, sitemap: 'skip' })
    if (res.status !== 202) throw new Error(`POST /v1/crawl answered ${res.status}: ${await res.text()}`)
    const { id } = (await res.json()) as { id: string }
    for (;;) {
      await new Promise((r) => setTimeout(r, 50))
      const task = (await (await call('GET', `/v1/crawl/${id}`)).json()) as {
        status: string
        result: { pages: { markdown?: string }[]; stats: { pages: number; failed: number; stopped: string; robots_disallowed: number } } | null
      }
      if (!['completed', 'failed', 'canceled'].includes(task.status)) continue
      const ms = performance.now() - started
      const cpuMs = cpuMsOf(child.pid!) - cpuStart
      const stats = task.result?.stats
      const chars = (task.result?.pages ?? []).reduce((n, p) => n + (p.markdown?.length ?? 0), 0)
      return {
        pages: stats?.pages ?? 0,
        failed: stats?.failed ?? 0,
        ms,
        peakRssMb: peakRssMb(child.pid!),
        cpuMs,
        chars,
        note: `status ${task.status}, stopped ${stats?.stopped}, robots_disallowed ${stats?.robots_disallowed}`,
      }
    }
  } finally {
    const exited = new Promise((r) => child.once('exit', r))
    child.kill('SIGTERM')
    await Promise.race([exited, new Promise((r) => setTimeout(r, 10_000))])
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
    rmSync(dir, { recursive: true, force: true })
  }
}

/** Pages/s of `concurrency` bare fetch() loops over `paths`: the machine's own ceiling, for reference. */
export async function fetchCeiling(siteUrl: string, paths: string[], concurrency: number): Promise<number> {
  let next = 0
  const started = performance.now()
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < paths.length) await (await fetch(`${siteUrl}${paths[next++]}`)).arrayBuffer()
    }),
  )
  return paths.length / ((performance.now() - started) / 1000)
}

/** Crawlee's CheerioCrawler in its own process (crawlee.child.ts); `cap` sets maxRequestsPerCrawl. */
export async function runCrawlee(siteUrl: string, opts: { cap: boolean }): Promise<CrawlRun> {
  const child = spawn(process.execPath, ['bin/run-ts.mjs', 'bench/crawl/crawlee.child.ts', siteUrl, opts.cap ? 'cap' : 'nocap'], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  let out = ''
  child.stdout!.on('data', (d) => (out += d))
  const code = await new Promise<number | null>((r) => child.once('exit', r))
  const line = out.trim().split('\n').pop() ?? ''
  if (code !== 0 || !line.startsWith('{')) throw new Error(`crawlee child failed (${code}): ${out.slice(-2000)}`)
  return JSON.parse(line) as CrawlRun
}
