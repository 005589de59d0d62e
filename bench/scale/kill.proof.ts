/**
 * proof:kill: batch jobs, crawls and monitor runs worked by 3 `trawl worker` processes, one of
 * which is SIGKILLed (and replaced) every 1-2 s while the work is in flight. Passes when every
 * job ended once (batch job done, crawl completed, each monitor's due run recorded once), each one's
 * ledger rows net to exactly what it says it used (charged once, refunded once at most), no hold is
 * left open, and the books are exact.
 *   npm run proof:kill          (PROOF_JOBS, PROOF_CRAWLS, PROOF_MONITORS, PROOF_KILLS to change the shape)
 */
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import {
  books,
  createAccount,
  credits,
  figures,
  freshDatabase,
  killAll,
  netByRequest,
  openBooks,
  proofEnv,
  runProof,
  sleep,
  slowEngine,
  startApi,
  startWorker,
  type TrawlProcess,
  waitFor,
} from './cluster.ts'

const JOBS = Number(process.env.PROOF_JOBS ?? 300)
const CRAWLS = Number(process.env.PROOF_CRAWLS ?? 8)
const CRAWL_LIMIT = 12
const MONITORS = Number(process.env.PROOF_MONITORS ?? 6)
const KILLS = Number(process.env.PROOF_KILLS ?? 12)
const WORKERS = 3
// A MediaWiki API answer: cheap to parse, so the workers' time goes to the job machinery under test.

/** A site of linked articles, each page answering after 150 ms, so a crawl takes a few seconds. */
async function slowSite(): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = createServer((req, res) => {
    const m = /^\/s(\d+)\/p(\d+)$/.exec(req.url ?? '')
    if (!m) return void res.writeHead(404, { 'content-type': 'text/plain' }).end('not found')
    const [site, n] = [Number(m[1]), Number(m[2])]
    const links = [1, 2, 3].map((k) => `<li><a href="/s${site}/p${n * 3 + k}">page ${n * 3 + k}</a></li>`).join('')
    const text = Array.from(
      { length: 4 },
      (_, i) => `<p>Page ${n} of site ${site}, paragraph ${i}: enough prose for a reader to keep it as the content of an article, sentence after sentence.</p>`,
    ).join('')
    setTimeout(
      () =>
        res
          .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
          .end(`<!doctype html><title>Page ${n}</title><article><h1>Page ${n}</h1>${text}<ul>${links}</ul></article>`),
      150,
    )
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections()
        server.close(() => r())
      }),
  }
}

await runProof(async () => {
  // Searches answer after 400 ms, monitor searches after 2.5 s: a kill always lands mid-work.
  const upstream = await slowEngine((req) => (req.url?.includes('kill+monitor') || req.url?.includes('kill%20monitor') ? 2500 : 400))
  const site = await slowSite()
  const db = await freshDatabase()
  const env = {
    ...proofEnv(db, upstream),
    TRAWL_ALLOW_PRIVATE_NETWORK: 'true',
    TRAWL_SCHEDULER_POLL_MS: '200',
    // Leases long enough that a CPU-starved (not dead) worker keeps them on a busy machine.
    TRAWL_JOB_LEASE_MS: '8000',
  }
  const store = await openBooks(db.url)
  try {
    const api = await startApi('api', env)
    const { id: accountId, key } = await createAccount(api.base, { plan: 'enterprise', rate_limit_rps: 100_000, credits: 5000 })
    const call = async (method: string, path: string, body?: unknown) => {
      const res = await fetch(`${api.base}${path}`, {
        method,
        headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) },
        body: body ? JSON.stringify(body) : undefined,
      })
      const json = (await res.json()) as Record<string, unknown>
      if (res.status >= 400) throw new Error(`${method} ${path} answered ${res.status}: ${JSON.stringify(json)}`)
      return json
    }

    // The work, queued before any worker runs.
    for (let b = 0; b < JOBS / 100; b++) {
      await call('POST', '/v1/batches', {
        endpoint: 'search',
        requests: Array.from({ length: 100 }, (_, i) => ({ q: `kill proof ${b * 100 + i}`, engine: 'wikipedia' })),
      })
    }
    for (let c = 0; c < CRAWLS; c++) await call('POST', '/v1/crawl', { url: `${site.url}/s${c}/p0`, limit: CRAWL_LIMIT })
    for (let m = 0; m < MONITORS; m++) await call('POST', '/v1/monitors', { q: `kill monitor ${m}`, engine: 'wikipedia', interval: 'hourly' })

    const workers: TrawlProcess[] = Array.from({ length: WORKERS }, (_, i) => startWorker(`worker-${i + 1}`, env))
    const unfinished = async () => {
      const jobs = await store.db
        .selectFrom('batch_jobs')
        .select('id')
        .where('account_id', '=', accountId)
        .where('status', 'in', ['queued', 'running'])
        .execute()
      const crawls = await store.db.selectFrom('crawls').select('id').where('account_id', '=', accountId).where('status', 'in', ['queued', 'running']).execute()
      const runs = await store.db.selectFrom('monitor_runs').select('monitor_id').where('account_id', '=', accountId).execute()
      return jobs.length + crawls.length + (MONITORS - new Set(runs.map((r) => r.monitor_id)).size)
    }

    // Process ids holding a lease right now (the runner's worker id is `<kind>-<host>-<pid>-<random>`).
    const busyPids = async () => {
      const owners = await Promise.all(
        (['batch_jobs', 'crawls', 'monitors'] as const).map((table) =>
          store.db.selectFrom(table).select('lease_owner').where('status', '=', 'running').where('lease_owner', 'is not', null).execute(),
        ),
      )
      return new Set(owners.flat().map((r) => Number(/-(\d+)-[0-9a-f]+$/.exec(r.lease_owner ?? '')?.[1])))
    }

    // Every 1-2 s, SIGKILL a worker that is in the middle of something and start a replacement, as a crashing host would.
    const started = Date.now()
    let kills = 0
    let spawned = WORKERS
    while (KILLS > 0 && kills < KILLS && (await unfinished()) > 0 && Date.now() - started < 60_000) {
      await sleep(1000 + Math.random() * 1000)
      const busy = await busyPids()
      const candidates = workers.filter((w) => busy.has(w.child.pid ?? -1))
      if (candidates.length === 0) continue
      const victim = candidates[Math.floor(Math.random() * candidates.length)]!
      workers.splice(workers.indexOf(victim), 1)
      await victim.kill('SIGKILL')
      kills++
      workers.push(startWorker(`worker-${++spawned}`, env))
    }
    const left = await unfinished()
    await waitFor(async () => (await unfinished()) === 0, 90_000, 'every job to finish').catch(() => {})
    const seconds = (Date.now() - started) / 1000
    for (const w of workers) await w.kill('SIGTERM')

    // Every job, crawl and monitor run against the ledger.
    const net = await netByRequest(store, accountId)
    const jobs = await store.db.selectFrom('batch_jobs').selectAll().where('account_id', '=', accountId).execute()
    const crawls = await store.db.selectFrom('crawls').selectAll().where('account_id', '=', accountId).execute()
    const pages = await store.db.selectFrom('crawl_pages').select(['crawl_id', 'charged_mc']).execute()
    const runs = await store.db.selectFrom('monitor_runs').selectAll().where('account_id', '=', accountId).execute()
    const count = { tried: 0, succeeded: 0, lost: 0, doubleBilled: 0, failed: 0 }
    const problems: string[] = []
    for (const job of jobs) {
      count.tried++
      // Charged at POST with the batch; the job's own rows are its one refund of what it did not use.
      const refund = net.get(job.request_id) ?? { netMc: 0, debits: 0, refunds: 0 }
      const takenMc = job.credits_charged_mc + refund.netMc
      if (job.status === 'queued' || job.status === 'running') count.lost++
      else if (takenMc > job.credits_used_mc || refund.refunds > 1) {
        count.doubleBilled++
        problems.push(`batch job ${job.id} billed twice: took ${takenMc}, used ${job.credits_used_mc}, refunds ${refund.refunds}`)
      } else if (takenMc < job.credits_used_mc) count.lost++
      else if (job.status === 'done') count.succeeded++
      else count.failed++
      if (job.status !== 'done') problems.push(`batch job ${job.id}: ${job.status} ${job.error ?? ''}`)
    }
    for (const crawl of crawls) {
      count.tried++
      const n = net.get(crawl.request_id) ?? { netMc: 0, debits: 0, refunds: 0 }
      const paidMc = pages.filter((p) => p.crawl_id === crawl.id).reduce((s, p) => s + p.charged_mc, 0)
      if (crawl.status === 'queued' || crawl.status === 'running') count.lost++
      // A completed crawl keeps what its pages cost; a failed one is refunded whole.
      else if (n.netMc > crawl.credits_used_mc || n.debits > 1 || n.refunds > 1 || (crawl.status === 'completed' && paidMc !== crawl.credits_used_mc)) {
        count.doubleBilled++
        problems.push(
          `crawl ${crawl.id} billed twice: took ${n.netMc}, used ${crawl.credits_used_mc}, pages ${paidMc}, debits ${n.debits}, refunds ${n.refunds}`,
        )
      } else if (n.netMc < crawl.credits_used_mc) count.lost++
      else if (crawl.status === 'completed') count.succeeded++
      else count.failed++
      if (crawl.status !== 'completed') problems.push(`crawl ${crawl.id}: ${crawl.status} ${crawl.error ?? ''}`)
    }
    const monitors = await store.db.selectFrom('monitors').select('id').where('account_id', '=', accountId).execute()
    for (const monitor of monitors) {
      count.tried++
      const mine = runs.filter((r) => r.monitor_id === monitor.id)
      const charges = mine.map((r) => net.get(r.id) ?? { netMc: 0, debits: 0, refunds: 0 })
      if (mine.length === 0) count.lost++
      else if (mine.length > 1 || charges.some((c, i) => c.debits > 1 || c.netMc !== mine[i]!.credits_used_mc)) {
        count.doubleBilled++
        problems.push(`monitor ${monitor.id} billed twice: runs ${mine.length}, charges ${JSON.stringify(charges)}`)
      } else if (mine[0]!.status === 'ok') count.succeeded++
      else count.failed++
    }
    const b = await books(store, accountId)
    const usedMc =
      jobs.reduce((s, j) => s + j.credits_used_mc, 0) + crawls.reduce((s, c) => s + c.credits_used_mc, 0) + runs.reduce((s, r) => s + r.credits_used_mc, 0)
    const spentMatches = b.startMc - b.balanceMc === usedMc
    figures('kill', {
      tried: count.tried,
      succeeded: count.succeeded,
      lost: count.lost,
      'double-billed': count.doubleBilled,
      'failed (refunded)': count.failed,
      jobs: `${jobs.length} batch, ${crawls.length} crawls, ${monitors.length} monitor runs`,
      'workers SIGKILLed': kills,
      'unfinished at last kill': left,
      'open holds': b.openHolds,
      ledger: `${credits(b.balanceMc)} + ${credits(b.debitsMc)} - ${credits(b.refundsMc)} = ${credits(b.balanceMc + b.debitsMc - b.refundsMc)} of ${credits(b.startMc)} ${b.exact ? 'exact' : 'MISMATCH'}`,
      'spent = used': `${credits(b.startMc - b.balanceMc)} = ${credits(usedMc)}${spentMatches ? '' : ' MISMATCH'}`,
      seconds: seconds.toFixed(1),
    })
    for (const p of problems.sort((a, b) => Number(b.includes('twice')) - Number(a.includes('twice'))).slice(0, 8)) console.log(p)
    return b.exact && b.openHolds === 0 && spentMatches && count.lost === 0 && count.doubleBilled === 0 && count.succeeded === count.tried && kills >= 3
  } finally {
    await killAll()
    await Promise.all([upstream.close(), site.close(), store.close()])
    if (process.env.PROOF_KEEP) console.log(`database kept: ${db.url}`)
    else await db.drop()
  }
})
