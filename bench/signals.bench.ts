/**
 * How long a signal takes to reach another process's handler, over Redis pub/sub and over
 * PostgreSQL LISTEN/NOTIFY, against the transport's own bare round trip measured in the same run
 * (Redis PING; PostgreSQL `select 1`) as the baseline. Two Services stand for two processes, as in
 * test/scale-signals.test.ts; each sample is one publish in A until B's handler runs.
 *   npm run bench:signals            (BENCH_SIGNALS=2000 samples per transport; needs PostgreSQL
 *                                     and Redis on 127.0.0.1 like the tests)
 */
import { sql } from 'kysely'
import { loadConfig } from '../src/config.ts'
import type { Services } from '../src/deps.ts'
import { openServices } from '../src/services.ts'
import { createTestDatabase } from '../test/support/postgres.ts'

const SAMPLES = Number(process.env.BENCH_SIGNALS ?? 2000)
const REDIS_URL = 'redis://127.0.0.1:6379'

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))]!
const ms = (v: number) => v.toFixed(3)

function summary(samples: number[]) {
  const sorted = [...samples].sort((a, b) => a - b)
  return { p50: percentile(sorted, 50), p99: percentile(sorted, 99), max: sorted[sorted.length - 1]! }
}

async function timed(n: number, once: () => Promise<void>) {
  const out: number[] = []
  for (let i = 0; i < 50; i++) await once() // warm-up
  for (let i = 0; i < n; i++) {
    const start = performance.now()
    await once()
    out.push(performance.now() - start)
  }
  return summary(out)
}

/** One publish in `a` until `b` has it: one signal in flight at a time. */
function signalLatency(a: Services, b: Services) {
  let waiting: (() => void) | null = null
  b.signals.on('job-queued', (s) => {
    if (s.kind === 'bench') waiting?.()
  })
  return () =>
    new Promise<void>((resolve) => {
      waiting = resolve
      void a.signals.publish({ type: 'job-queued', kind: 'bench' })
    })
}

async function run(transport: 'redis' | 'postgres') {
  const db = await createTestDatabase()
  const env = { TRAWL_DATABASE_URL: db.url, TRAWL_LOG_LEVEL: 'silent', ...(transport === 'redis' ? { TRAWL_REDIS_URL: REDIS_URL } : {}) }
  const a = await openServices(loadConfig(env))
  const b = await openServices(loadConfig(env))
  try {
    const baseline =
      transport === 'redis'
        ? await timed(SAMPLES, async () => {
            await a.redis!.ping()
          })
        : await timed(SAMPLES, async () => {
            await sql`select 1`.execute(a.store.db)
          })
    const signal = await timed(SAMPLES, signalLatency(a, b))
    const label = transport === 'redis' ? 'Redis PING' : 'PostgreSQL select 1'
    console.log(`${transport.padEnd(8)} signal A→B  p50 ${ms(signal.p50)} ms  p99 ${ms(signal.p99)} ms  max ${ms(signal.max)} ms`)
    console.log(`${''.padEnd(8)} ${label.padEnd(20)} p50 ${ms(baseline.p50)} ms  p99 ${ms(baseline.p99)} ms`)
    console.log(`${''.padEnd(8)} ratio signal/baseline  p50 ${(signal.p50 / baseline.p50).toFixed(2)}x  p99 ${(signal.p99 / baseline.p99).toFixed(2)}x`)
  } finally {
    await a.close()
    await b.close()
    await db.drop()
  }
}

console.log(`signal delivery between two processes' services, ${SAMPLES} samples each`)
await run('redis')
await run('postgres')
