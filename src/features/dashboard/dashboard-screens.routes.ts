import type { FastifyInstance, FastifyRequest } from 'fastify'
import { z } from 'zod'
import { toCredits } from '../../billing/money.ts'
import type { AppDeps } from '../../deps.ts'
import { ApiError } from '../../errors.ts'
import { setBillingHeaders } from '../../http/billing-headers.ts'
import { parseInput, parseWith } from '../../http/parse-input.ts'
import { countTokens } from '../../text/tokens.ts'
import { dashboardPaths, forgetSignedIn, sessionReader } from './dashboard.http.ts'
import { isPlaygroundVertical, playgroundKeys, playgroundVerticals, runPlayground } from './playground.service.ts'
import { accountSummary, ledger, usageSeries } from './usage.service.ts'
import { listDeliveries, sendTestEvent } from './webhook-settings.service.ts'
import {
  batchJobDetail,
  cancelCrawlFor,
  crawlDetail,
  engineHealth,
  listBatchJobs,
  listCrawls,
  listMonitorsFor,
  monitorRunsFor,
  runMonitorFor,
  setMonitorActive,
} from './work.service.ts'

const limit = (max: number) =>
  z
    .number()
    .int()
    .min(1, 'limit must be between 1 and ' + max)
    .max(max, 'limit must be between 1 and ' + max)
const UsageQuery = z.strictObject({ days: z.number().int().min(1, 'days must be between 1 and 90').max(90, 'days must be between 1 and 90').optional() })
const LedgerQuery = z.strictObject({ limit: limit(200).optional(), before: z.number().int().min(1).optional() })
const ListQuery = z.strictObject({ limit: limit(100).optional() })
const IdParams = z.strictObject({ id: z.string().min(1) })
const MonitorActiveBody = z.strictObject({ active: z.boolean({ error: 'active must be true or false' }) })
const PlaygroundParams = z.strictObject({ vertical: z.string().min(1) })
const PlaygroundBody = z.strictObject({
  key_id: z.string().min(1).optional(),
  params: z.record(z.string(), z.unknown(), { error: 'params must be an object of the endpoint’s parameters' }),
})

/**
 * The dashboard API behind the app's screens (docs/dashboard.md "API"): account summary, usage
 * series, ledger, webhook deliveries and test event, the work lists (batches, crawls, monitors,
 * engine health) and the billed playground. Cookie sessions like the key routes; the Origin check
 * of csrf.ts guards every change.
 */
export function dashboardScreenRoutes(app: FastifyInstance, deps: AppDeps) {
  const { api, app: appPath } = dashboardPaths(deps.config.appUrl)
  const opts = { schema: { hide: true } }
  const user = sessionReader(deps.store, api)
  const id = (req: FastifyRequest) => parseWith(IdParams, req.params).id
  // The work screen shows what this server has: a /v1 endpoint another build lacks hides its section.
  const has = (method: 'GET' | 'POST', url: string) => app.hasRoute({ method, url })

  app.get(`${api}/v1/account`, opts, async (req, reply) => ({
    // The app's session probe: a session that is gone takes the signed-in hint with it.
    ...(await accountSummary(deps.store, await user(req).catch(forgetSignedIn(reply, appPath)))),
    features: {
      batches: has('POST', '/v1/batches'),
      crawls: has('POST', '/v1/crawl'),
      monitors: has('GET', '/v1/monitors'),
      engines: has('GET', '/v1/engines'),
    },
  }))
  app.get(`${api}/v1/usage`, opts, async (req) => usageSeries(deps.store, await user(req), parseInput(UsageQuery, req).days ?? 30))
  app.get(`${api}/v1/ledger`, opts, async (req) => {
    const q = parseInput(LedgerQuery, req)
    return ledger(deps.store, await user(req), q.limit ?? 50, q.before)
  })

  app.get(`${api}/v1/webhook/deliveries`, opts, async (req) => listDeliveries(deps.store, await user(req), parseInput(ListQuery, req).limit ?? 20))
  app.post(`${api}/v1/webhook/test`, opts, async (req) => sendTestEvent(deps.store, deps.config, await user(req)))

  app.get(`${api}/v1/crawls`, opts, async (req) => listCrawls(deps.store, await user(req), parseInput(ListQuery, req).limit ?? 20))
  app.get(`${api}/v1/crawls/:id`, opts, async (req) => crawlDetail(deps.store, await user(req), id(req)))
  app.delete(`${api}/v1/crawls/:id`, opts, async (req) => cancelCrawlFor(deps, await user(req), id(req)))

  app.get(`${api}/v1/batches`, opts, async (req) => listBatchJobs(deps.store, deps.config.baseUrl, await user(req), parseInput(ListQuery, req).limit ?? 50))
  app.get(`${api}/v1/batches/:id`, opts, async (req) => batchJobDetail(deps.store, deps.config.baseUrl, await user(req), id(req)))

  app.get(`${api}/v1/monitors`, opts, async (req) => listMonitorsFor(deps.store, await user(req)))
  app.patch(`${api}/v1/monitors/:id`, opts, async (req) => setMonitorActive(deps, await user(req), id(req), parseInput(MonitorActiveBody, req).active))
  app.post(`${api}/v1/monitors/:id/run`, opts, async (req) => runMonitorFor(deps, await user(req), id(req)))
  app.get(`${api}/v1/monitors/:id/runs`, opts, async (req) => monitorRunsFor(deps.store, await user(req), id(req), parseInput(ListQuery, req).limit ?? 10))

  app.get(`${api}/v1/engines`, opts, async (req) => {
    await user(req)
    return engineHealth(deps)
  })

  app.get(`${api}/v1/playground`, opts, async (req) => ({
    verticals: playgroundVerticals(),
    keys: await playgroundKeys(deps.store, await user(req)),
  }))
  app.post(`${api}/v1/playground/:vertical`, { ...opts, config: { billed: true } }, async (req, reply) => {
    const session = await user(req)
    const { vertical } = parseWith(PlaygroundParams, req.params)
    if (!isPlaygroundVertical(vertical))
      throw new ApiError('not_found', `no vertical ${vertical}: the playground runs /v1/search and the other search verticals`)
    const body = parseInput(PlaygroundBody, req)
    const run = await runPlayground(deps, session, vertical, body.params, body.key_id, req.id)
    const tokens = await countTokens(run.markdown ?? JSON.stringify(run.json))
    // The same billing headers as the API answer, and the same figures in the body for the screen.
    setBillingHeaders(req, reply, { usedMc: run.outcome.usedMc, balanceMc: run.outcome.balanceMc, cacheHit: run.outcome.cacheHit, tokens }, deps.usdPerCredit)
    return {
      vertical,
      key_id: run.auth.keyId,
      request_id: req.id,
      credits_used: toCredits(run.outcome.usedMc),
      credits_remaining: run.outcome.balanceMc == null ? null : toCredits(run.outcome.balanceMc),
      cost_usd: Number((toCredits(run.outcome.usedMc) * deps.usdPerCredit).toFixed(6)),
      cache: run.outcome.cacheHit ? 'HIT' : 'MISS',
      json: run.json,
      markdown: run.markdown,
    }
  })
}
