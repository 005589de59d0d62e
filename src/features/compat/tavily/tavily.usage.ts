import { toCredits } from '../../../billing/money.ts'
import { spendByDay } from '../../../billing/spend.store.ts'
import type { AuthContext } from '../../../http/auth.ts'
import type { Store } from '../../../store/database.ts'
import { accountForKey } from '../../accounts/accounts.service.ts'

type Bucket = 'search_usage' | 'extract_usage' | 'crawl_usage' | 'map_usage' | 'research_usage'

/** Trawl's ledger endpoints in Tavily's usage buckets; every search vertical, rank and batch is search. */
function bucketOf(endpoint: string | null): Bucket {
  if (endpoint === '/v1/extract' || endpoint === '/v1/webpage') return 'extract_usage'
  if (endpoint === '/v1/crawl') return 'crawl_usage'
  if (endpoint === '/v1/map') return 'map_usage'
  return 'search_usage'
}

const emptyBuckets = (): Record<Bucket, number> => ({ search_usage: 0, extract_usage: 0, crawl_usage: 0, map_usage: 0, research_usage: 0 })

/**
 * GET /usage: GET /v1/account in Tavily's shape. `usage` and `plan_usage` are this UTC month's
 * credits (the counters key limits and spend caps use); the per-endpoint split is summed from the
 * ledger (net of refunds) for the same month. Free, like GET /v1/account.
 */
export async function tavilyUsage(store: Store, auth: AuthContext) {
  const account = await accountForKey(store, auth.accountId, auth.keyId)
  const now = new Date()
  const monthStart = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1)
  const keyBuckets = emptyBuckets()
  const accountBuckets = emptyBuckets()
  for (const row of await spendByDay(store.db, auth.accountId, monthStart)) {
    const bucket = bucketOf(row.endpoint)
    accountBuckets[bucket] += row.spent_mc
    if (row.key_id === auth.keyId) keyBuckets[bucket] += row.spent_mc
  }
  const credits = (buckets: Record<Bucket, number>) =>
    Object.fromEntries(Object.entries(buckets).map(([name, mc]) => [name, toCredits(mc)])) as Record<Bucket, number>
  return {
    key: { usage: account.key.credits_used_month, limit: account.key.credit_limit, ...credits(keyBuckets) },
    account: {
      current_plan: account.plan,
      plan_usage: account.month.credits,
      plan_limit: account.monthly_spend_cap,
      paygo_usage: 0,
      paygo_limit: null,
      balance: account.balance,
      ...credits(accountBuckets),
    },
  }
}
