/**
 * Batch throughput: drains 10,000 batch jobs (100 POST /v1/batches of 100 searches each) through
 * the real server and its job runner, against a fake engine on 127.0.0.1 answering a saved results
 * page (BENCH_ENGINE below), then makes realtime GET /v1/search calls of the same queries at the same concurrency as the
 * batch runner, as the baseline. Prints jobs per second, peak RSS and heap, the ratio, and a ledger
 * check per account: balance + debits - refunds = the starting balance.
 *   npm run bench:batches            (BENCH_JOBS=2000 for a quicker run; BENCH_BASELINE for the realtime count)
 * One process: server, workers, fake upstream and client share the event loop and both CPUs' worth
 * of whatever the machine gives, the same for both measurements.
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import { BATCH_JOBS_PER_WORKER } from '../src/features/batches/batches.worker.ts'
import { fakeUpstream, fixture, htmlPage } from '../test/support/fake-upstream.ts'
import { startTrawl, type Trawl } from '../test/support/start-trawl.ts'

const JOBS = Number(process.env.BENCH_JOBS ?? 10_000)
const PER_BATCH = 100
const BASELINE_CALLS = Number(process.env.BENCH_BASELINE ?? JOBS)
/** The batch runner's jobs in flight per process; the baseline's realtime calls in flight. */
const CONCURRENCY = BATCH_JOBS_PER_WORKER
/**
 * wikipedia (default): a MediaWiki API answer (8 KB of JSON), so the run measures the batch
 * machinery (queue, claim, lookup, settle, finish) rather than HTML parsing; google: a saved
 * no-JavaScript Google page (71 KB), about 15 ms of parsing per search on its own.
 */
const ENGINE = process.env.BENCH_ENGINE === 'google' ? 'google' : 'wikipedia'
const ANSWER =
  ENGINE === 'google'
    ? htmlPage(fixture('serp/google/web-nojs/zlurad-coffee-nojs.html'))
    : (_req: IncomingMessage, res: ServerResponse) =>
        res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' }).end(fixture('serp/wikipedia/api/android-full-text-search-generator.json'))

const mb = (bytes: number) => (bytes / 1048576).toFixed(0)

/** Samples RSS and heap every 100 ms while `fn` runs. */
async function sampled<T>(fn: () => Promise<T>) {
  ;(globalThis as { gc?: () => void }).gc?.()
  let rss = process.memoryUsage().rss
  let heap = process.memoryUsage().heapUsed
  const timer = setInterval(() => {
    const m = process.memoryUsage()
    rss = Math.max(rss, m.rss)
    heap = Math.max(heap, m.heapUsed)
  }, 100)
  const started = performance.now()
  try {
    const value = await fn()
    return { value, ms: performance.now() - started, rssPeak: rss, heapPeak: heap }
  } finally {
    clearInterval(timer)
  }
}

/** The ledger sums to the balance; debits (charges and holds) minus refunds is what was spent. */
async function ledgerCheck(trawl: Trawl, accountId: string) {
  const db = trawl.services.store.db
  const rows = await db.selectFrom('ledger').select(['kind', 'amount_mc']).where('account_id', '=', accountId).execute()
  const sum = (kinds: string[]) => rows.filter((r) => kinds.includes(r.kind)).reduce((n, r) => n + Number(r.amount_mc), 0)
  const start = sum(['purchase'])
  const debits = -sum(['charge', 'reserve'])
  const refunds = sum(['refund'])
  const { balance_mc: balance } = await db.selectFrom('accounts').select('balance_mc').where('id', '=', accountId).executeTakeFirstOrThrow()
  const open = await db.selectFrom('reservations').select('id').where('account_id', '=', accountId).execute()
  const ok = balance + debits - refunds === start && open.length === 0 && rows.reduce((n, r) => n + Number(r.amount_mc), 0) === balance
  return {
    ok,
    line: `balance ${balance / 1000} + debits ${debits / 1000} - refunds ${refunds / 1000} = ${(balance + debits - refunds) / 1000} (start ${start / 1000}); open holds ${open.length}: ${ok ? 'OK' : 'MISMATCH'}`,
    spentMc: debits - refunds,
  }
}

async function main() {
  const upstream = await fakeUpstream(ANSWER)
  const trawl = await startTrawl({ TRAWL_UPSTREAM_HOSTS: `*=${upstream.url}`, TRAWL_SCHEDULER_POLL_MS: '200', TRAWL_LOG_LEVEL: 'silent' }, { workers: true })
  console.log(
    `batch jobs: ${JOBS} (${JOBS / PER_BATCH} POSTs of ${PER_BATCH}), realtime baseline: ${BASELINE_CALLS} calls, concurrency ${CONCURRENCY}, engine ${ENGINE}, node ${process.version}`,
  )
  try {
    const batchAccount = await trawl.account({ plan: 'enterprise', rate_limit_rps: 100_000, credits: 1_000_000 })
    const liveAccount = await trawl.account({ plan: 'enterprise', rate_limit_rps: 100_000, credits: 1_000_000 })
    const db = trawl.services.store.db

    const batch = await sampled(async () => {
      for (let b = 0; b < JOBS / PER_BATCH; b++) {
        const requests = Array.from({ length: PER_BATCH }, (_, i) => ({ q: `coffee ${b * PER_BATCH + i}`, engine: ENGINE }))
        const res = await fetch(`${trawl.base}/v1/batches`, {
          method: 'POST',
          headers: { authorization: `Bearer ${batchAccount.key}`, 'content-type': 'application/json' },
          body: JSON.stringify({ endpoint: 'search', requests }),
        })
        if (res.status !== 202) throw new Error(`POST /v1/batches answered ${res.status}: ${await res.text()}`)
        await res.arrayBuffer()
      }
      // Drained when no job of the account is queued or running.
      for (;;) {
        const left = await db
          .selectFrom('batch_jobs')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('account_id', '=', batchAccount.id)
          .where('status', 'in', ['queued', 'running'])
          .executeTakeFirstOrThrow()
        if (Number(left.n) === 0) break
        await new Promise((r) => setTimeout(r, 100))
      }
    })
    const statuses = await db
      .selectFrom('batch_jobs')
      .select(['status', (eb) => eb.fn.countAll<number>().as('n')])
      .where('account_id', '=', batchAccount.id)
      .groupBy('status')
      .execute()

    const live = await sampled(async () => {
      let next = 0
      let failed = 0
      const lane = async () => {
        for (let i = next++; i < BASELINE_CALLS; i = next++) {
          const res = await fetch(`${trawl.base}/v1/search?q=${encodeURIComponent(`coffee ${i}`)}&engine=${ENGINE}`, {
            headers: { authorization: `Bearer ${liveAccount.key}` },
          })
          if (res.status !== 200) failed++
          await res.arrayBuffer()
        }
      }
      await Promise.all(Array.from({ length: CONCURRENCY }, lane))
      return failed
    })

    const batchRate = JOBS / (batch.ms / 1000)
    const liveRate = BASELINE_CALLS / (live.ms / 1000)
    console.log('')
    console.log('run                      count  seconds   per second  RSS peak MB  heap peak MB')
    console.log(
      `batch jobs (drained) ${String(JOBS).padStart(9)} ${(batch.ms / 1000).toFixed(1).padStart(8)} ${batchRate.toFixed(1).padStart(12)} ${mb(batch.rssPeak).padStart(12)} ${mb(batch.heapPeak).padStart(13)}`,
    )
    console.log(
      `realtime /v1/search ${String(BASELINE_CALLS).padStart(10)} ${(live.ms / 1000).toFixed(1).padStart(8)} ${liveRate.toFixed(1).padStart(12)} ${mb(live.rssPeak).padStart(12)} ${mb(live.heapPeak).padStart(13)}`,
    )
    console.log(`\njob statuses: ${statuses.map((s) => `${s.status} ${s.n}`).join(', ')}; realtime failures: ${live.value}`)
    console.log(`batch/realtime throughput: ${(batchRate / liveRate).toFixed(2)}x`)
    const batchBooks = await ledgerCheck(trawl, batchAccount.id)
    const liveBooks = await ledgerCheck(trawl, liveAccount.id)
    console.log(`ledger (batch account):    ${batchBooks.line}; spent ${batchBooks.spentMc / 1000} for ${JOBS} jobs`)
    console.log(`ledger (realtime account): ${liveBooks.line}; spent ${liveBooks.spentMc / 1000} for ${BASELINE_CALLS} calls`)
    if (!batchBooks.ok || !liveBooks.ok) process.exitCode = 1
  } finally {
    await trawl.close()
    await upstream.close()
  }
}

await main()
