/**
 * proof:ledger: 2,000 billed searches at once, spread over 4 API processes sharing one PostgreSQL
 * database and Redis (rate limits), against an account whose balance pays for a quarter of them.
 * Passes when the ledger is exact (balance + debits - refunds = purchases, the ledger sums to the
 * balance, no hold left open), no row ever went below zero, every request's ledger rows net to
 * exactly what its answer said it cost, and nothing answered 5xx or failed to answer.
 *   npm run proof:ledger        (PROOF_CALLS, PROOF_CREDITS, PROOF_PROCESSES to change the shape)
 */
import { Agent } from 'undici'
import {
  billingAgainstAnswers,
  books,
  createAccount,
  credits,
  figures,
  freshDatabase,
  killAll,
  openBooks,
  proofEnv,
  runProof,
  slowEngine,
  startApi,
} from './cluster.ts'

const CALLS = Number(process.env.PROOF_CALLS ?? 2000)
const CREDITS = Number(process.env.PROOF_CREDITS ?? 500)
const PROCESSES = Number(process.env.PROOF_PROCESSES ?? 4)

await runProof(async () => {
  const upstream = await slowEngine()
  const db = await freshDatabase()
  const env = proofEnv(db, upstream)
  const store = await openBooks(db.url)
  try {
    // The first process migrates the fresh database; the others start on it.
    const first = await startApi('api-1', env)
    const apis = [first, ...(await Promise.all(Array.from({ length: PROCESSES - 1 }, (_, i) => startApi(`api-${i + 2}`, env))))]
    const { id: accountId, key } = await createAccount(first.base, { plan: 'enterprise', rate_limit_rps: 100_000, credits: CREDITS })

    // Every call on its own connection, all in flight at once.
    const dispatcher = new Agent({ connections: CALLS, pipelining: 0, headersTimeout: 60_000, bodyTimeout: 60_000 })
    const started = performance.now()
    const outcomes = await Promise.all(
      Array.from({ length: CALLS }, async (_, i) => {
        const base = apis[i % apis.length]!.base
        try {
          const res = await fetch(`${base}/v1/search?q=ledger+proof+${i}&engine=wikipedia`, {
            headers: { authorization: `Bearer ${key}` },
            signal: AbortSignal.timeout(60_000),
            dispatcher,
          } as RequestInit)
          const body = (await res.json()) as { error?: { code: string } }
          return {
            status: res.status,
            code: body.error?.code ?? null,
            requestId: res.headers.get('x-request-id'),
            usedMc: Math.round(Number(res.headers.get('x-credits-used') ?? 0) * 1000),
          }
        } catch (e) {
          return { status: 0, code: (e as Error).name, requestId: null, usedMc: 0 }
        }
      }),
    )
    const seconds = (performance.now() - started) / 1000
    await dispatcher.close()

    const b = await books(store, accountId)
    const { net, doubleBilled, underBilled } = await billingAgainstAnswers(store, accountId, outcomes)
    // Ledger rows of requests nobody got an answer for.
    const answered = new Set(outcomes.map((o) => o.requestId))
    const orphans = [...net.entries()].filter(([id, n]) => !answered.has(id) && n.netMc !== 0).length
    const succeeded = outcomes.filter((o) => o.status === 200).length
    const refused = outcomes.filter((o) => o.status === 402).length
    const fiveXx = outcomes.filter((o) => o.status >= 500).length
    const lost = outcomes.filter((o) => o.status === 0).length + underBilled + orphans
    const other = outcomes.filter((o) => o.status !== 0 && o.status !== 200 && o.status !== 402 && o.status < 500)
    const spentMc = outcomes.reduce((n, o) => n + (o.status === 200 ? o.usedMc : 0), 0)
    figures('ledger', {
      tried: CALLS,
      succeeded,
      lost,
      'double-billed': doubleBilled,
      'refused 402': refused,
      '5xx': fiveXx,
      other: other.length,
      overdraft: b.overdrafts,
      'open holds': b.openHolds,
      ledger: `${credits(b.balanceMc)} + ${credits(b.debitsMc)} - ${credits(b.refundsMc)} = ${credits(b.balanceMc + b.debitsMc - b.refundsMc)} of ${credits(b.startMc)} ${b.exact ? 'exact' : 'MISMATCH'}`,
      'spent by answers': credits(spentMc),
      processes: PROCESSES,
      seconds: seconds.toFixed(1),
    })
    if (other.length > 0) console.log('other answers:', [...new Set(other.map((o) => `${o.status} ${o.code}`))].join(', '))
    const errors = outcomes.filter((o) => o.status >= 500 || o.status === 0)
    if (errors.length > 0) console.log('failures:', [...new Set(errors.map((o) => `${o.status} ${o.code}`))].join(', '))
    return (
      b.exact &&
      b.openHolds === 0 &&
      fiveXx === 0 &&
      lost === 0 &&
      doubleBilled === 0 &&
      other.length === 0 &&
      spentMc === b.startMc - b.balanceMc &&
      succeeded + refused === CALLS
    )
  } finally {
    await Promise.all([upstream.close(), store.close()])
    // The processes hold connections to the database: stop them before dropping it.
    await killAll()
    await db.drop()
  }
})
