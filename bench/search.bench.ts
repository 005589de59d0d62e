/**
 * Cached /v1/search requests per second next to a bare Fastify handler on the same machine (same
 * load generator, same connections), against the bar of docs/performance.md (ratio >= 0.50, p99 under 10 ms), and
 * the median Google page parse time over every web fixture. Each cached call is a billed call: a
 * half-price charge written to the ledger (group commit, docs/ARCHITECTURE.md "Money").
 * Measured from outside: the load generator (autocannon), the server as `npm start` runs it
 * (BENCH_NODE_ARGS adds node flags) and the bare Fastify baseline (same node flags, same body)
 * each run in a process of their own; the bench process only starts them and reads the results.
 * Run: npm run bench:search
 */

import { execFile, spawn } from 'node:child_process'
import { once } from 'node:events'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { parseGoogleSearch } from '../src/engines/google/google-search.parse.ts'
import { fakeUpstream, fixture, htmlPage } from '../test/support/fake-upstream.ts'
import { listFixtures } from '../test/support/fixtures.ts'
import { cpuMsOf, peakRssMb, START_FLAGS, startTrawlProcess } from './support/trawl-process.ts'

const DURATION_S = Number(process.env.BENCH_SECONDS ?? 5)
/** Turns each server takes under load; the median round is the result. */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3)
/** Load before each measured run, not counted: the first second of a fresh process is the JIT's. */
const WARM_UP_S = Number(process.env.BENCH_WARM_UP_SECONDS ?? 3)
const CONNECTIONS = 50
/** The bar (docs/performance.md): cached billed searches at >= 0.50 of a bare Fastify handler, p99 under 10 ms. */
const RATIO_BAR = 0.5
const P99_BAR_MS = 10
const AUTOCANNON = new URL('../node_modules/autocannon/autocannon.js', import.meta.url).pathname
const BARE_FASTIFY = new URL('./support/bare-fastify.mjs', import.meta.url).pathname
const run = promisify(execFile)

/**
 * autocannon in its own process, so the load generator does not share the server's event loop:
 * WARM_UP_S of load first (steady state is what is compared, for Trawl and bare Fastify alike),
 * then DURATION_S measured.
 */
async function load(url: string, serverPid: number, seconds: number, headers: Record<string, string> = {}) {
  const args = [
    AUTOCANNON,
    '--json',
    '-c',
    String(CONNECTIONS),
    '-d',
    String(seconds),
    ...Object.entries(headers).flatMap(([k, v]) => ['-H', `${k}=${v}`]),
    url,
  ]
  const cpuBefore = cpuMsOf(serverPid)
  const { stdout } = await run(process.execPath, args, { maxBuffer: 64 * 1024 * 1024 })
  const cpuMs = cpuMsOf(serverPid) - cpuBefore
  const result = JSON.parse(stdout)
  return {
    // The server's CPU time a request: less swayed than req/s by what else the machine runs.
    cpuUsPerRequest: Math.round((cpuMs * 1000) / Math.max(1, result.requests.total)),
    rps: Math.round(result.requests.average),
    p50: result.latency.p50 as number,
    p99: result.latency.p99 as number,
    non2xx: result.non2xx as number,
    errors: result.errors as number,
  }
}

type Load = Awaited<ReturnType<typeof load>>

/**
 * Both servers run side by side (the idle one costs nothing) and take turns under load, ROUNDS
 * times: a machine whose speed drifts (other tenants, frequency) moves both sides of a round
 * alike, and the median round is reported. Each side gets WARM_UP_S of load first, not counted.
 */
async function benchHttp() {
  const upstream = await fakeUpstream(htmlPage(fixture('serp/google/web-desktop/zlurad-coffee.html')))
  // The server as `npm start` runs it, in its own process: its pauses are its own, not the bench's.
  // npm start's log level (info: one line a request), written to a file as a deployment's log
  // would be; BENCH_LOG_LEVEL changes it.
  const trawl = await startTrawlProcess(
    { TRAWL_UPSTREAM_HOSTS: `*=${upstream.url}`, TRAWL_LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'info' },
    { logToFile: true },
  )
  const url = `${trawl.base}/v1/search?q=coffee&max_age=86400`
  const auth = { authorization: `Bearer ${trawl.key}` }
  const body = await (await fetch(url, { headers: auth })).text()
  const bare = await startBareFastify(body)
  const bareUrl = `${bare.url}/v1/search?q=coffee`
  const rounds: { cached: Load; baseline: Load }[] = []
  try {
    if (WARM_UP_S > 0) {
      await load(url, trawl.pid, WARM_UP_S, auth)
      await load(bareUrl, bare.pid, WARM_UP_S)
    }
    for (let i = 0; i < ROUNDS; i++) {
      const cached = await load(url, trawl.pid, DURATION_S, auth)
      const baseline = await load(bareUrl, bare.pid, DURATION_S)
      rounds.push({ cached, baseline })
    }
    return { rounds, bytes: Buffer.byteLength(body), rssMb: peakRssMb(trawl.pid) }
  } finally {
    await bare.close()
    await trawl.close()
    await upstream.close()
  }
}

/** The baseline: bare Fastify answering `body` in a process of its own, under the server's node flags. */
async function startBareFastify(body: string) {
  const dir = mkdtempSync(join(tmpdir(), 'trawl-bench-bare-'))
  const file = join(dir, 'body.json')
  writeFileSync(file, body)
  const child = spawn(process.execPath, [...START_FLAGS, BARE_FASTIFY, file], { stdio: ['ignore', 'pipe', 'inherit'] })
  let printed = ''
  for await (const chunk of child.stdout!) {
    printed += chunk
    if (printed.includes('\n')) break
  }
  const url = printed.trim()
  if (!url.startsWith('http://')) throw new Error(`bare Fastify did not start: ${printed}`)
  const close = async () => {
    const exited = once(child, 'exit')
    child.kill('SIGTERM')
    await exited
    rmSync(dir, { recursive: true, force: true })
  }
  return { url, pid: child.pid!, close }
}

function benchParse() {
  const dirs = ['web-desktop', 'web-mobile', 'web-nojs', 'web-basic']
  const pages: { name: string; html: string }[] = []
  for (const dir of dirs) {
    for (const file of listFixtures(`serp/google/${dir}`))
      if (file.endsWith('.html')) pages.push({ name: `${dir}/${file}`, html: fixture(`serp/google/${dir}/${file}`).toString('utf8') })
  }
  const perPage: number[] = []
  for (const page of pages) {
    parseGoogleSearch(page.html) // warm-up
    const times: number[] = []
    for (let i = 0; i < 5; i++) {
      const t = performance.now()
      parseGoogleSearch(page.html)
      times.push(performance.now() - t)
    }
    perPage.push(median(times))
  }
  return { pages: pages.length, medianMs: median(perPage), maxMs: Math.max(...perPage) }
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.floor(s.length / 2)] ?? 0
}

// BENCH_PARSE=0: the HTTP comparison only (repeated runs of it).
if (process.env.BENCH_PARSE !== '0') {
  const parse = benchParse()
  console.log(`google parse: ${parse.pages} fixture pages, median ${parse.medianMs.toFixed(2)} ms per page, slowest ${parse.maxMs.toFixed(2)} ms`)
}
const http = await benchHttp()
const verdict = (ok: boolean) => (ok ? 'meets' : 'MISSES')
const line = (l: Load) =>
  `${l.rps} req/s, p50 ${l.p50} ms, p99 ${l.p99} ms, server CPU ${l.cpuUsPerRequest} µs a request${l.non2xx || l.errors ? `, non-2xx ${l.non2xx}, errors ${l.errors}` : ''}`
console.log(`cached /v1/search (${http.bytes} B body) against a bare Fastify handler answering the same body, ${CONNECTIONS} connections,`)
console.log(`${ROUNDS} rounds of ${DURATION_S} s each, after ${WARM_UP_S} s of warm-up each:`)
http.rounds.forEach((r, i) => {
  console.log(`  round ${i + 1}: Trawl ${line(r.cached)}`)
  console.log(`           bare  ${line(r.baseline)}  -> ratio ${(r.cached.rps / r.baseline.rps).toFixed(3)}`)
})
const middle = [...http.rounds].sort((a, b) => a.cached.rps / a.baseline.rps - b.cached.rps / b.baseline.rps)[Math.floor(http.rounds.length / 2)]!
const ratio = middle.cached.rps / middle.baseline.rps
console.log(`server peak RSS ${http.rssMb.toFixed(0)} MB (as npm start runs it, SQLite)`)
console.log(`ratio (median round): ${ratio.toFixed(3)} of bare Fastify (bar ${RATIO_BAR.toFixed(2)}: ${verdict(ratio >= RATIO_BAR)})`)
console.log(`CPU ratio (bare Fastify's CPU a request / Trawl's): ${(middle.baseline.cpuUsPerRequest / Math.max(1, middle.cached.cpuUsPerRequest)).toFixed(3)}`)
console.log(
  `p99: ${middle.cached.p99} ms, bare Fastify's ${middle.baseline.p99} ms in the same round (bar under ${P99_BAR_MS} ms: ${verdict(middle.cached.p99 < P99_BAR_MS)})`,
)
const failed = http.rounds.some((r) => r.cached.non2xx > 0 || r.cached.errors > 0)
if (failed) {
  console.log('some cached requests failed: the figures above do not measure the cached path')
  process.exitCode = 1
}
