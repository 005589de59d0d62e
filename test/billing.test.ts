import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { charge, type Payer, refundStaleReservations, reserve, STALE_RESERVATION_MS, settle } from '../src/billing/credits.ts'
import { expectBooksBalanced } from './support/books.ts'
import { type FakeUpstream, fakeUpstream, fixture, htmlPage } from './support/fake-upstream.ts'
import { createTestDatabase } from './support/postgres.ts'
import { skipWithoutPostgres } from './support/servers.ts'
import { startTrawl, type Trawl } from './support/start-trawl.ts'

const RESULTS_PAGE = fixture('serp/google/web-desktop/zlurad-coffee.html')

function billingSuite(name: string, env: () => Promise<{ env: Record<string, string>; cleanup(): Promise<void> }>, skip = false) {
  describe.skipIf(skip)(name, () => {
    let trawl: Trawl
    let upstream: FakeUpstream
    let cleanup: () => Promise<void>
    beforeAll(async () => {
      upstream = await fakeUpstream(htmlPage(RESULTS_PAGE))
      const e = await env()
      cleanup = e.cleanup
      trawl = await startTrawl({ TRAWL_UPSTREAM_HOSTS: `*=${upstream.url}`, TRAWL_UPSTREAM_TIMEOUT_MS: '15000', ...e.env })
    })
    afterAll(async () => {
      await trawl.close()
      await upstream.close()
      await cleanup()
    })
    const search = (key: string, q = 'coffee', extra = '') => fetch(`${trawl.base}/v1/search?q=${q}${extra}`, { headers: { authorization: `Bearer ${key}` } })

    test('hundreds of simultaneous billed calls never overdraw a small balance', async () => {
      const { id, key } = await trawl.account({ plan: 'enterprise', rate_limit_rps: 100_000, credits: 7 })
      const responses = await Promise.all(Array.from({ length: 300 }, (_, i) => search(key, `coffee+${i}`)))
      const statuses = responses.map((r) => r.status)
      expect(statuses.filter((s) => s === 200)).toHaveLength(7)
      expect(statuses.filter((s) => s === 402)).toHaveLength(293)
      const refused = responses.find((r) => r.status === 402)!
      expect(refused.headers.get('x-credits-used')).toBe('0')
      expect((await refused.json()).error.code).toBe('insufficient_credits')
      expect(await expectBooksBalanced(trawl, id)).toBe(0)
      const account = await (await fetch(`${trawl.base}/v1/account`, { headers: { authorization: `Bearer ${key}` } })).json()
      expect(account.month).toEqual({ credits: 7, requests: 7 })
    })

    test("a key's monthly limit and the account spend cap stop calls before they run", async () => {
      const { id, key } = await trawl.account({ plan: 'enterprise', rate_limit_rps: 100_000, credits: 100, monthly_spend_cap: 5 })
      const limited = await trawl.admin('POST', `/admin/v1/accounts/${id}/keys`, { name: 'small', credit_limit: 2 })
      const small = (await limited.json()).secret
      const results = await Promise.all(Array.from({ length: 20 }, () => search(small)))
      expect(results.filter((r) => r.status === 200)).toHaveLength(2)
      const refused = results.find((r) => r.status === 403)!
      expect((await refused.json()).error.code).toBe('key_limit_reached')
      // The other key keeps working until the account-wide cap (5) is reached.
      const rest = await Promise.all(Array.from({ length: 10 }, () => search(key)))
      expect(rest.filter((r) => r.status === 200)).toHaveLength(3)
      expect((await rest.find((r) => r.status === 403)!.json()).error.code).toBe('spend_cap_reached')
      expect(await expectBooksBalanced(trawl, id)).toBe(95)
    })

    test('a daily limit gives 429 daily_limit_reached; buying a pack removes it', async () => {
      const { id, key } = await trawl.account({ plan: 'free', credits: 100, daily_limit: 2 })
      expect((await search(key)).status).toBe(200)
      expect((await search(key)).status).toBe(200)
      const third = await search(key)
      expect(third.status).toBe(429)
      expect((await third.json()).error.code).toBe('daily_limit_reached')
      await trawl.admin('POST', `/admin/v1/accounts/${id}/credits`, { credits: 10 })
      expect((await search(key)).status).toBe(200)
      expect(await expectBooksBalanced(trawl, id)).toBe(107)
    })

    test('num=100 costs 7 and num=20 costs 2; a half-price cache hit with max_age', async () => {
      const { id, key } = await trawl.account({ plan: 'enterprise', rate_limit_rps: 1000, credits: 20 })
      const deep = await search(key, 'deep', '&num=100')
      expect(deep.headers.get('x-credits-used')).toBe('7')
      expect(deep.headers.get('x-cost-usd')).toBe('0.007')
      const twenty = await search(key, 'twenty', '&num=20')
      expect(twenty.headers.get('x-credits-used')).toBe('2')
      const cached = await search(key, 'twenty', '&num=20&max_age=3600')
      expect(cached.headers.get('x-cache')).toBe('HIT')
      expect(cached.headers.get('x-credits-used')).toBe('1')
      const body = await cached.json()
      expect(body.meta).toMatchObject({ cached: true, credits_used: 1 })
      expect(Date.parse(body.meta.cached_at)).toBeLessThanOrEqual(Date.now())
      expect(cached.headers.get('x-credits-remaining')).toBe('10')
      expect(await expectBooksBalanced(trawl, id)).toBe(10)
    })

    test('a reservation left by a process that died mid-call is refunded exactly once', async () => {
      const { id, key } = await trawl.account({ plan: 'pro', credits: 10 })
      const { keyId } = await trawl.services.keys.resolve(key)
      // The call reserved 7 credits and then its process died: nothing settles it.
      await reserve(trawl.services.store, { accountId: id, keyId, keyLimitMc: null }, 7000, 'req_crashed', '/v1/search')
      expect(await refundStaleReservations(trawl.services.store)).toBe(0) // too young: may still be running
      const later = Date.now() + STALE_RESERVATION_MS + 1000
      const sweeps = await Promise.all([refundStaleReservations(trawl.services.store, later), refundStaleReservations(trawl.services.store, later)])
      expect(sweeps[0]! + sweeps[1]!).toBe(1)
      expect(await expectBooksBalanced(trawl, id)).toBe(10)
    })

    test('failed and empty calls are refunded to the last millicredit', async () => {
      const { id, key } = await trawl.account({ plan: 'enterprise', rate_limit_rps: 1000, credits: 3 })
      upstream.handle(htmlPage(fixture('serp/google/web-desktop/zlurad-no-results.html')))
      const empty = await search(key, 'nothing')
      expect(empty.status).toBe(200)
      expect(empty.headers.get('x-credits-used')).toBe('0')
      expect((await empty.json()).meta).toMatchObject({ parse_quality: 'empty', credits_used: 0 })
      upstream.handle((_req, res) => res.writeHead(500).end('oops'))
      const failed = await search(key, 'fail')
      expect(failed.status).toBe(503)
      expect(failed.headers.get('retry-after')).toBeTruthy()
      expect(failed.headers.get('x-credits-used')).toBe('0')
      // The failed call carries the billing headers too, at 0 (docs/api-reference.md).
      expect(failed.headers.get('x-credits-remaining')).toBe('3')
      expect(Number(failed.headers.get('x-tokens-estimate'))).toBeGreaterThan(0)
      for (const header of ['x-cost-usd', 'x-cache', 'x-latency-ms', 'x-request-id']) expect(failed.headers.get(header), header).not.toBeNull()
      upstream.handle(htmlPage(RESULTS_PAGE))
      expect(await expectBooksBalanced(trawl, id)).toBe(3)
    })

    test('2,000 simultaneous charges and reservations: every debit in the ledger, the balance exact, none overdrawn', async () => {
      const { id, key } = await trawl.account({ plan: 'enterprise', rate_limit_rps: 100_000, credits: 900 })
      const { keyId } = await trawl.services.keys.resolve(key)
      const payer: Payer = { accountId: id, keyId, keyLimitMc: null }
      const store = trawl.services.store
      // Half are cache hits (charge 0.5), half are live calls (reserve 1, settle to 1 or to 0.5).
      const calls = Array.from({ length: 2000 }, async (_, i) => {
        if (i % 2 === 0) return charge(store, payer, 500, `req_hit_${i}`, '/v1/search').then(() => 500)
        const held = await reserve(store, payer, 1000, `req_live_${i}`, '/v1/search')
        await settle(store, held, i % 4 === 1 ? 1000 : 500)
        return i % 4 === 1 ? 1000 : 500
      })
      const results = await Promise.allSettled(calls)
      const spentMc = results.reduce((sum, r) => sum + (r.status === 'fulfilled' ? r.value : 0), 0)
      for (const r of results) if (r.status === 'rejected') expect(r.reason).toMatchObject({ code: 'insufficient_credits' })
      expect(results.filter((r) => r.status === 'rejected').length).toBeGreaterThan(0) // the balance did run out
      expect(await expectBooksBalanced(trawl, id)).toBe(900 - spentMc / 1000)
      expect(900_000 - spentMc).toBeGreaterThanOrEqual(0)
      const debits = await store.db.selectFrom('ledger').select('request_id').where('account_id', '=', id).where('kind', 'in', ['charge', 'reserve']).execute()
      expect(debits).toHaveLength(results.filter((r) => r.status === 'fulfilled').length)
      const usage = await store.db.selectFrom('usage_counters').selectAll().where('scope', '=', 'account').where('scope_id', '=', id).executeTakeFirstOrThrow()
      expect(usage.credits_mc).toBe(spentMc)
      expect(usage.requests).toBe(debits.length)
    }, 120_000)
  })
}

billingSuite('metering on SQLite', async () => ({ env: {}, cleanup: async () => {} }))
billingSuite(
  'metering on PostgreSQL',
  async () => {
    const db = await createTestDatabase()
    return { env: { TRAWL_DATABASE_URL: db.url }, cleanup: db.drop }
  },
  skipWithoutPostgres,
)
