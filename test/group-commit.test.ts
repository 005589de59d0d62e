import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { charge, type Payer, reserve, settle } from '../src/billing/credits.ts'
import { ApiError } from '../src/errors.ts'
import type { GroupCommit } from '../src/store/group-commit.ts'
import { expectBooksBalanced } from './support/books.ts'
import { type FakeUpstream, fakeUpstream, fixture, htmlPage } from './support/fake-upstream.ts'
import { startTrawl, type Trawl } from './support/start-trawl.ts'

const RESULTS_PAGE = fixture('serp/google/web-desktop/zlurad-coffee.html')

/** The outcome of each promise, in call order: the balance after, or the refusal's code. */
const outcomes = (calls: Promise<number | null>[]) =>
  Promise.all(
    calls.map((c) =>
      c.then(
        (balanceMc) => ({ balanceMc }),
        (err: Error) => ({ refused: err instanceof ApiError ? err.code : err.message }),
      ),
    ),
  )

describe('group commit of debits on SQLite', () => {
  let trawl: Trawl
  let upstream: FakeUpstream
  let commits: GroupCommit
  beforeAll(async () => {
    upstream = await fakeUpstream(htmlPage(RESULTS_PAGE))
    trawl = await startTrawl({ TRAWL_UPSTREAM_HOSTS: `*=${upstream.url}`, TRAWL_UPSTREAM_TIMEOUT_MS: '15000' })
    commits = trawl.services.store.groupCommit as GroupCommit
  })
  afterAll(async () => {
    await trawl.close()
    await upstream.close()
  })

  async function payerWith(credits: number, extra: Record<string, unknown> = {}) {
    const { id, key } = await trawl.account({ plan: 'enterprise', rate_limit_rps: 100_000, credits, ...extra })
    const { keyId } = await trawl.services.keys.resolve(key)
    const payer: Payer = { accountId: id, keyId, keyLimitMc: null }
    return { id, key, payer }
  }

  const ledgerOf = (accountId: string) =>
    trawl.services.store.db
      .selectFrom('ledger')
      .select(['kind', 'amount_mc', 'balance_after_mc', 'request_id'])
      .where('account_id', '=', accountId)
      .orderBy('id')
      .execute()

  test('debits that arrive together share one COMMIT, and each caller gets its own balance after', async () => {
    const { id, payer } = await payerWith(100)
    const before = commits.commits
    const results = await outcomes(Array.from({ length: 40 }, (_, i) => charge(trawl.services.store, payer, 500, `req_together_${i}`, '/v1/search')))
    expect(commits.commits - before).toBe(1)
    expect(results).toEqual(Array.from({ length: 40 }, (_, i) => ({ balanceMc: 100_000 - 500 * (i + 1) })))
    const ledger = await ledgerOf(id)
    expect(ledger.filter((r) => r.kind === 'charge').map((r) => r.balance_after_mc)).toEqual(results.map((r) => (r as { balanceMc: number }).balanceMc))
    expect(await expectBooksBalanced(trawl, id)).toBe(80)
  })

  test('a balance that runs out mid-batch refuses exactly the calls after it, with insufficient_credits', async () => {
    const { id, payer } = await payerWith(5)
    const before = commits.commits
    const results = await outcomes(Array.from({ length: 8 }, (_, i) => charge(trawl.services.store, payer, 1000, `req_short_${i}`, '/v1/search')))
    expect(commits.commits - before).toBe(1)
    expect(results).toEqual([
      { balanceMc: 4000 },
      { balanceMc: 3000 },
      { balanceMc: 2000 },
      { balanceMc: 1000 },
      { balanceMc: 0 },
      { refused: 'insufficient_credits' },
      { refused: 'insufficient_credits' },
      { refused: 'insufficient_credits' },
    ])
    const charged = (await ledgerOf(id)).filter((r) => r.kind === 'charge').map((r) => r.request_id)
    expect(charged).toEqual(['req_short_0', 'req_short_1', 'req_short_2', 'req_short_3', 'req_short_4'])
    expect(await expectBooksBalanced(trawl, id)).toBe(0)
  })

  test('key limit, spend cap and daily limit are exact inside one batch', async () => {
    const { id, payer } = await payerWith(100, { monthly_spend_cap: 6, daily_limit: 4 })
    const keyed: Payer = { ...payer, keyLimitMc: 3000 }
    const results = await outcomes([
      ...Array.from({ length: 4 }, (_, i) => charge(trawl.services.store, keyed, 1000, `req_key_${i}`, '/v1/search')),
      ...Array.from({ length: 3 }, (_, i) => charge(trawl.services.store, payer, 1000, `req_day_${i}`, '/v1/search')),
    ])
    expect(results.map((r) => ('refused' in r ? r.refused : 'ok'))).toEqual([
      'ok',
      'ok',
      'ok',
      'key_limit_reached',
      'ok',
      'daily_limit_reached',
      'daily_limit_reached',
    ])
    expect(await expectBooksBalanced(trawl, id)).toBe(96)
    const account = await trawl.services.store.db.selectFrom('usage_counters').selectAll().where('scope_id', '=', id).orderBy('scope').execute()
    expect(account.map((c) => [c.scope, c.credits_mc, c.requests])).toEqual([
      ['account', 4000, 4],
      ['account_day', 4000, 4],
    ])
  })

  test('reserve and settle go through the batches too: held, then refunded to what was used', async () => {
    const { id, payer } = await payerWith(10)
    const held = await Promise.all([
      reserve(trawl.services.store, payer, 3000, 'req_r1', '/v1/search'),
      reserve(trawl.services.store, payer, 3000, 'req_r2', '/v1/search'),
    ])
    expect(await trawl.services.store.db.selectFrom('reservations').select('id').where('account_id', '=', id).execute()).toHaveLength(2)
    const [first, second, again] = await Promise.all([
      settle(trawl.services.store, held[0]!, 1000),
      settle(trawl.services.store, held[1]!, 0),
      settle(trawl.services.store, held[1]!, 0),
    ])
    expect([first, second, again]).toEqual([6000, 9000, null]) // settled once: the second settle of the same reservation is a no-op
    expect(await expectBooksBalanced(trawl, id)).toBe(9)
  })

  test('a piece of work that fails rolls back only its own rows and rejects only its caller', async () => {
    const { id, payer } = await payerWith(10)
    const db = trawl.services.store.db
    // A ledger write that fails. A charge writes nothing else (it runs without a savepoint); a
    // reserve has already written its reservation row, which its savepoint must take back.
    await sql`create trigger boom before insert on ledger when new.request_id glob 'req_boom*' begin select raise(abort, 'ledger write refused'); end`.execute(
      db,
    )
    try {
      const before = commits.commits
      const store = trawl.services.store
      const results = await outcomes([
        charge(store, payer, 1000, 'req_ok_1', '/v1/search'),
        charge(store, payer, 1000, 'req_boom_charge', '/v1/search'),
        reserve(store, payer, 1000, 'req_boom_reserve', '/v1/search').then((r) => r.id.length),
        charge(store, payer, 1000, 'req_ok_2', '/v1/search'),
      ])
      expect(commits.commits - before).toBe(1)
      expect(results).toEqual([{ balanceMc: 9000 }, { refused: 'ledger write refused' }, { refused: 'ledger write refused' }, { balanceMc: 8000 }])
      expect(await expectBooksBalanced(trawl, id)).toBe(8)
      expect(await db.selectFrom('reservations').select('id').where('account_id', '=', id).execute()).toEqual([])
      const counters = await db.selectFrom('usage_counters').select(['scope', 'requests']).where('scope_id', '=', id).execute()
      expect(counters.every((c) => c.requests === 2)).toBe(true)
    } finally {
      await sql`drop trigger boom`.execute(db)
    }
  })

  test('a batch whose COMMIT fails rejects every caller in it and leaves no row behind', async () => {
    const { id, payer } = await payerWith(10)
    const before = await ledgerOf(id)
    const store = trawl.services.store
    const group = store.groupCommit as GroupCommit
    const results = await Promise.allSettled([
      charge(store, payer, 1000, 'req_doomed_1', '/v1/search'),
      // Foreign keys checked at COMMIT, and a ledger row for an account that does not exist: the
      // COMMIT is refused, so nothing of this batch may be written.
      group.run((db) => {
        db.pragma('defer_foreign_keys = ON')
        db.prepare("insert into ledger (account_id, amount_mc, balance_after_mc, created_at, kind) values ('no-such-account', 1, 1, 0, 'charge')").run()
      }),
      charge(store, payer, 1000, 'req_doomed_2', '/v1/search'),
    ])
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected', 'rejected'])
    expect(String((results[0] as PromiseRejectedResult).reason)).toMatch(/FOREIGN KEY/)
    expect(await ledgerOf(id)).toEqual(before)
    expect(await store.db.selectFrom('ledger').select('id').where('account_id', '=', 'no-such-account').execute()).toEqual([])
    expect(await expectBooksBalanced(trawl, id)).toBe(10)
    // The next batch commits as usual.
    expect(await charge(store, payer, 1000, 'req_after', '/v1/search')).toBe(9000)
  })

  test('cached hits over HTTP: the balance runs out mid-batch and exactly the right calls get 402', async () => {
    const { id, key } = await payerWith(10)
    const search = () => fetch(`${trawl.base}/v1/search?q=coffee&max_age=86400`, { headers: { authorization: `Bearer ${key}` } })
    expect((await search()).status).toBe(200) // live or cached: 1 or 0.5 credits
    const left = await expectBooksBalanced(trawl, id)
    const responses = await Promise.all(Array.from({ length: 60 }, search))
    const ok = responses.filter((r) => r.status === 200)
    expect(ok).toHaveLength(Math.floor(left / 0.5))
    for (const r of ok) expect(r.headers.get('x-cache')).toBe('HIT')
    const refused = responses.filter((r) => r.status === 402)
    expect(refused).toHaveLength(60 - ok.length)
    const body = await refused[0]!.json()
    expect(body.error).toMatchObject({ code: 'insufficient_credits', request_id: refused[0]!.headers.get('x-request-id') })
    expect(refused[0]!.headers.get('x-credits-used')).toBe('0')
    const remaining = ok.map((r) => Number(r.headers.get('x-credits-remaining'))).sort((a, b) => b - a)
    expect(remaining).toEqual(Array.from({ length: ok.length }, (_, i) => left - 0.5 * (i + 1)))
    expect(await expectBooksBalanced(trawl, id)).toBe(left - 0.5 * ok.length)
  })
})
