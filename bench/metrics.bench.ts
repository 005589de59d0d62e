/**
 * What /metrics and the request-scoped log fields cost a request: server CPU time per call of a
 * cached /v1/search (the hottest path of docs/performance.md) and of /livez (almost nothing but the hooks), with
 * the instrumentation on, against the same app built with `instrument: false` (no metrics hooks, no
 * AsyncLocalStorage scope). CPU per request rather than requests per second, so that a machine
 * busy with other work skews it less. Each variant runs in a process of its own, because once any
 * AsyncLocalStorage scope has been entered Node keeps its async hooks on for the whole process;
 * the variants alternate and the median of the rounds is reported.
 * Run: npm run bench:metrics
 */

import { execFile } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3)
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 20_000)
const CONNECTIONS = 20
const AUTOCANNON = new URL('../node_modules/autocannon/autocannon.js', import.meta.url).pathname
const RUN_TS = new URL('../bin/run-ts.mjs', import.meta.url).pathname
const SELF = new URL(import.meta.url).pathname
const run = promisify(execFile)

type Result = Record<'search' | 'livez', number>

/** One variant in this process: the server, then a load generator in a child process per route. */
async function child(instrument: boolean): Promise<Result> {
  const { loadConfig } = await import('../src/config.ts')
  const { openServices } = await import('../src/services.ts')
  const { buildApp } = await import('../src/app.ts')
  const { fakeUpstream, fixture, htmlPage } = await import('../test/support/fake-upstream.ts')
  const upstream = await fakeUpstream(htmlPage(fixture('serp/google/web-desktop/zlurad-coffee.html')))
  const dir = mkdtempSync(join(tmpdir(), 'trawl-bench-metrics-'))
  const token = 'bench-admin-token-0123456789'
  const config = loadConfig({
    TRAWL_DATABASE_URL: `sqlite:${join(dir, 'trawl.db')}`,
    TRAWL_ADMIN_TOKEN: token,
    TRAWL_LOG_LEVEL: 'silent',
    TRAWL_UPSTREAM_HOSTS: `*=${upstream.url}`,
  })
  const services = await openServices(config)
  const app = await buildApp(services, { instrument })
  const base = await app.listen({ host: '127.0.0.1', port: 0 })
  const created = await fetch(`${base}/admin/v1/accounts`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ email: 'bench@example.test', plan: 'enterprise', rate_limit_rps: 100_000, credits: 10_000_000 }),
  })
  const key = ((await created.json()) as { key: { secret: string } }).key.secret
  const search = `${base}/v1/search?q=coffee&max_age=86400`
  await (await fetch(search, { headers: { authorization: `Bearer ${key}` } })).text() // cached from here on

  const cpuPerRequest = async (url: string) => {
    const args = (n: number) => [AUTOCANNON, '-c', String(CONNECTIONS), '-a', String(n), '-H', `authorization=Bearer ${key}`, url]
    await run(process.execPath, args(Math.ceil(REQUESTS / 5))) // warm-up
    const before = process.cpuUsage()
    await run(process.execPath, args(REQUESTS), { maxBuffer: 1 << 26 })
    const used = process.cpuUsage(before)
    return (used.user + used.system) / REQUESTS
  }
  const result = { search: await cpuPerRequest(search), livez: await cpuPerRequest(`${base}/livez`) }
  await app.close()
  await services.close()
  await upstream.close()
  rmSync(dir, { recursive: true, force: true })
  return result
}

async function variant(instrument: boolean): Promise<Result> {
  const { stdout } = await run(process.execPath, [RUN_TS, SELF, '--child', instrument ? 'on' : 'off'], { maxBuffer: 1 << 26 })
  return JSON.parse(stdout.trim().split('\n').pop() ?? '{}') as Result
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN

async function main() {
  const off: Result[] = []
  const on: Result[] = []
  for (let round = 0; round < ROUNDS; round++) {
    off.push(await variant(false))
    on.push(await variant(true))
  }
  console.log(`server CPU per request, median of ${ROUNDS} alternating rounds of ${REQUESTS} requests (${CONNECTIONS} connections)`)
  for (const route of ['search', 'livez'] as const) {
    const base = median(off.map((r) => r[route]))
    const inst = median(on.map((r) => r[route]))
    const name = route === 'search' ? 'cached /v1/search' : '/livez'
    console.log(
      `  ${name.padEnd(18)} baseline ${base.toFixed(1)} µs   instrumented ${inst.toFixed(1)} µs   ratio ${(inst / base).toFixed(3)}   (+${(inst - base).toFixed(1)} µs)`,
    )
  }
}

if (process.argv[2] === '--child') {
  const result = await child(process.argv[3] === 'on')
  console.log(JSON.stringify(result))
  process.exit(0)
} else {
  await main()
}
