/**
 * proof:restart: billed searches keep arriving at 2 API processes while the machine's PostgreSQL is
 * stopped and started again, then Redis likewise. Passes when /healthz reported each outage (503
 * naming the database, then the cache), every call either succeeded or failed with 503
 * `unavailable` (never a 500, never a hang past the client's 20 s), the service answered 200 again
 * by itself once each server was back, and the books are exact once the holds that calls cut off
 * by the outage left open are swept by the maintenance refund.
 * It stops the machine's PostgreSQL and Redis for a few seconds: run it when nothing else uses them.
 *   npm run proof:restart       (PROOF_CLIENTS, PROOF_DOWN_MS to change the shape)
 */
import { Agent } from 'undici'
import { refundStaleReservations, STALE_RESERVATION_MS } from '../../src/billing/credits.ts'
import { reachable } from '../../test/support/reachable.ts'
import {
  billingAgainstAnswers,
  books,
  createAccount,
  credits,
  ensureServers,
  figures,
  freshDatabase,
  killAll,
  openBooks,
  postgresCtl,
  postgresUp,
  proofEnv,
  redisCtl,
  runProof,
  sleep,
  slowEngine,
  startApi,
  waitFor,
} from './cluster.ts'

const CLIENTS = Number(process.env.PROOF_CLIENTS ?? 16)
const DOWN_MS = Number(process.env.PROOF_DOWN_MS ?? 5000)
const CLIENT_TIMEOUT_MS = 20_000

interface Outcome {
  at: number
  status: number
  code: string | null
  requestId: string | null
  usedMc: number
}

await runProof(async () => {
  const upstream = await slowEngine()
  const db = await freshDatabase()
  const env = proofEnv(db, upstream)
  const store = await openBooks(db.url)
  const dispatcher = new Agent({ connections: CLIENTS * 2, headersTimeout: CLIENT_TIMEOUT_MS, bodyTimeout: CLIENT_TIMEOUT_MS })
  let stop = false
  try {
    const first = await startApi('api-1', env)
    const apis = [first, await startApi('api-2', env)]
    const { id: accountId, key } = await createAccount(first.base, { plan: 'enterprise', rate_limit_rps: 100_000, credits: 100_000 })

    // The load: CLIENTS loops of billed searches, round robin over the processes, until stopped.
    const outcomes: Outcome[] = []
    let n = 0
    const started = Date.now()
    const client = async () => {
      while (!stop) {
        const i = n++
        const at = Date.now() - started
        try {
          const res = await fetch(`${apis[i % apis.length]!.base}/v1/search?q=restart+proof+${i}&engine=wikipedia`, {
            headers: { authorization: `Bearer ${key}` },
            signal: AbortSignal.timeout(CLIENT_TIMEOUT_MS),
            dispatcher,
          } as RequestInit)
          const body = (await res.json().catch(() => ({}))) as { error?: { code: string } }
          outcomes.push({
            at,
            status: res.status,
            code: body.error?.code ?? null,
            requestId: res.headers.get('x-request-id'),
            usedMc: Math.round(Number(res.headers.get('x-credits-used') ?? 0) * 1000),
          })
        } catch (e) {
          outcomes.push({ at, status: 0, code: (e as Error).name, requestId: null, usedMc: 0 })
        }
        // A failed call is retried after a short pause, as a client honouring Retry-After (shortened) would.
        if (outcomes.at(-1)?.status !== 200) await sleep(200)
      }
    }
    const loops = Array.from({ length: CLIENTS }, client)

    const health = async () => {
      const res = await fetch(`${first.base}/healthz`, { signal: AbortSignal.timeout(10_000), dispatcher } as RequestInit)
      return { status: res.status, body: (await res.json()) as { checks: Record<string, string> } }
    }
    const okSince = (t: number) => outcomes.some((o) => o.at >= t && o.status === 200)

    /** Takes one server down for DOWN_MS and up again; returns what /healthz said and how long recovery took. */
    const outage = async (name: string, check: string, down: () => void, up: () => void, isUp: () => Promise<boolean>) => {
      const downAt = Date.now()
      down()
      let last = ''
      const seen = await waitFor(
        async () => {
          const h = await health().catch((e: Error) => ({ status: 0, body: { checks: { error: e.message } as Record<string, string> } }))
          last = `${h.status} ${JSON.stringify(h.body.checks)}`
          return h.status === 503 && !h.body.checks[check]?.startsWith('ok') ? h.body.checks[check] : null
        },
        15_000,
        `/healthz to report ${name} down`,
      ).catch((e: Error) => {
        throw new Error(`${e.message}; it last answered ${last}`)
      })
      const reportedMs = Date.now() - downAt
      await sleep(DOWN_MS)
      const upAt = Date.now()
      up()
      await waitFor(isUp, 30_000, `${name} to start`)
      const serverMs = Date.now() - upAt
      await waitFor(async () => (await health()).status === 200, 30_000, '/healthz to recover')
      const healthyMs = Date.now() - upAt
      await waitFor(async () => okSince(upAt - started), 30_000, 'a search to succeed again')
      const servingMs = Date.now() - upAt
      // What callers got from the stop until the first search served again.
      const during = outcomes.filter((o) => o.at >= downAt - started && o.at <= upAt - started + servingMs)
      const calls = `${during.filter((o) => o.status === 200).length} ok, ${during.filter((o) => o.code === 'unavailable').length} unavailable of ${during.length}`
      return { reported: `${seen} after ${reportedMs} ms`, serverMs, healthyMs, servingMs, calls }
    }

    await sleep(3000)
    const pg = await outage(
      'PostgreSQL',
      'database',
      () => postgresCtl('stop'),
      () => postgresCtl('start'),
      postgresUp,
    )
    await sleep(3000)
    const redis = await outage(
      'Redis',
      'cache',
      () => redisCtl('stop'),
      () => redisCtl('start'),
      () => reachable(6379),
    )
    await sleep(3000)
    stop = true
    await Promise.all(loops)
    const seconds = (Date.now() - started) / 1000

    // Calls cut off between their hold and its settlement leave the hold open; the maintenance
    // worker refunds holds older than 10 minutes: run that sweep as if 10 minutes had passed.
    const before = await books(store, accountId)
    const swept = await refundStaleReservations(store, Date.now() + STALE_RESERVATION_MS + 1000)
    const b = await books(store, accountId)
    const { doubleBilled, underBilled } = await billingAgainstAnswers(store, accountId, outcomes)
    const succeeded = outcomes.filter((o) => o.status === 200).length
    const unavailable = outcomes.filter((o) => o.status === 503 && o.code === 'unavailable').length
    const internal = outcomes.filter((o) => o.status === 500).length
    const hung = outcomes.filter((o) => o.status === 0).length
    const other = outcomes.filter((o) => o.status !== 0 && o.status !== 200 && !(o.status === 503 && o.code === 'unavailable') && o.status !== 500)
    figures('restart', {
      tried: outcomes.length,
      succeeded,
      lost: underBilled,
      'double-billed': doubleBilled,
      '503 unavailable': unavailable,
      '500 internal': internal,
      'hung (no answer in 20 s)': hung,
      other: other.length,
      'postgres: healthz': pg.reported,
      'postgres: calls meanwhile': pg.calls,
      'postgres: healthy again': `${pg.healthyMs} ms after start (server up in ${pg.serverMs} ms), serving in ${pg.servingMs} ms`,
      'redis: healthz': redis.reported,
      'redis: calls meanwhile': redis.calls,
      'redis: healthy again': `${redis.healthyMs} ms after start, serving in ${redis.servingMs} ms`,
      'holds left by the outage': `${before.openHolds}, swept ${swept}`,
      ledger: `${credits(b.balanceMc)} + ${credits(b.debitsMc)} - ${credits(b.refundsMc)} = ${credits(b.balanceMc + b.debitsMc - b.refundsMc)} of ${credits(b.startMc)} ${b.exact ? 'exact' : 'MISMATCH'}`,
      seconds: seconds.toFixed(1),
    })
    if (other.length > 0) console.log('other answers:', [...new Set(other.map((o) => `${o.status} ${o.code}`))].join(', '))
    return b.exact && b.openHolds === 0 && internal === 0 && hung === 0 && other.length === 0 && doubleBilled === 0 && underBilled === 0 && succeeded > 0
  } finally {
    stop = true
    await dispatcher.close().catch(() => {})
    await killAll()
    await Promise.all([upstream.close(), store.close()])
    // Both servers back before the database is dropped, even when the run failed mid-outage.
    await ensureServers()
    await db.drop().catch((e) => console.error('could not drop the database:', e))
  }
})
