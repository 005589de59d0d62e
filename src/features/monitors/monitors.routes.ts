import type { FastifyInstance } from 'fastify'
import { z } from 'zod'
import type { AppDeps } from '../../deps.ts'
import { errorResponses, jsonAnswer } from '../../http/error-schema.ts'
import { parseInput } from '../../http/parse-input.ts'
import { JobIdParams, jobIdOf } from '../../params/job.params.ts'
import { MonitorDeleted, MonitorList, MonitorResponse, MonitorResultsEvent, MonitorRuns } from './monitors.response.ts'
import { explainNonMonitorParam, MonitorParams, MonitorPatch, MonitorRunsQuery } from './monitors.schema.ts'
import { createMonitor, deleteMonitor, getMonitor, listAccountMonitors, monitorRuns, patchMonitor, runMonitorNow } from './monitors.service.ts'

/**
 * The monitor.results webhook in the OpenAPI document, as a callback of POST /v1/monitors (the
 * runs of the monitor it creates POST it to webhook_url, or to the account webhook URL).
 */
const resultsCallback = {
  'monitor.results': {
    '{$request.body#/webhook_url}': {
      post: {
        summary: 'monitor.results: a run found new results',
        description:
          'Signed like every webhook (X-Trawl-Signature v1= HMAC and Standard Webhooks headers); X-Trawl-Delivery is the run id, the same on every retry. Sent only when a run found something new; any 2xx within 10 seconds acknowledges it.',
        requestBody: { required: true, content: { 'application/json': { schema: z.toJSONSchema(MonitorResultsEvent, { target: 'draft-2020-12' }) } } },
        responses: { '2XX': { description: 'received' } },
      },
    },
  },
}

/** POST/GET /v1/monitors, GET/PATCH/DELETE /v1/monitors/{id}, POST /v1/monitors/{id}/run, GET /v1/monitors/{id}/runs. */
export function monitorRoutes(app: FastifyInstance, deps: AppDeps) {
  const tags = ['monitors']
  const one = { 200: MonitorResponse, ...errorResponses }
  const body = <S extends typeof MonitorParams | typeof MonitorPatch>(schema: S, req: Parameters<typeof parseInput>[1]) =>
    parseInput(schema, req, { explainUnknown: explainNonMonitorParam }) as z.infer<S>

  app.post(
    '/v1/monitors',
    {
      config: { auth: 'key' },
      schema: {
        tags,
        operationId: 'createMonitor',
        summary: 'Create a monitor',
        description:
          'A saved search (endpoint search or news) or a watched page (webpage) that runs every interval and reports only what is new. The first run is due at once. At most 100 monitors per account (403 forbidden). Runs are billed on the key that created the monitor or last changed or ran it.',
        body: MonitorParams,
        response: one,
        callbacks: resultsCallback,
      },
    },
    async (req) => createMonitor(deps, req.auth, body(MonitorParams, req)),
  )
  app.get(
    '/v1/monitors',
    {
      config: { auth: 'key' },
      schema: { tags, operationId: 'listMonitors', summary: "The account's monitors", response: { 200: MonitorList, ...errorResponses } },
    },
    async (req) => listAccountMonitors(deps.store, req.auth.accountId),
  )
  app.get(
    '/v1/monitors/:id',
    { config: { auth: 'key' }, schema: { tags, operationId: 'getMonitor', summary: 'A monitor', params: JobIdParams, response: one } },
    async (req) => getMonitor(deps.store, req.auth.accountId, jobIdOf(req.params)),
  )
  app.patch(
    '/v1/monitors/:id',
    {
      config: { auth: 'key' },
      schema: {
        tags,
        operationId: 'updateMonitor',
        summary: 'Change a monitor',
        description:
          'Any field of POST; null clears an optional one. Saved-search fields are merged into the saved search and validated as a whole; a changed saved search starts a new baseline (the next run reports everything, first_run true). active=false pauses; active=true on a paused monitor runs it at once and clears consecutive_failures. The calling key becomes the key runs are billed on.',
        params: JobIdParams,
        body: MonitorPatch,
        response: one,
      },
    },
    async (req) => patchMonitor(deps, req.auth, jobIdOf(req.params), body(MonitorPatch, req)),
  )
  app.delete(
    '/v1/monitors/:id',
    {
      config: { auth: 'key' },
      schema: {
        tags,
        operationId: 'deleteMonitor',
        summary: 'Delete a monitor with its run history',
        params: JobIdParams,
        response: { 200: MonitorDeleted, ...errorResponses },
      },
    },
    async (req) => deleteMonitor(deps.store, req.auth.accountId, jobIdOf(req.params)),
  )
  app.post(
    '/v1/monitors/:id/run',
    {
      config: { auth: 'key' },
      schema: {
        tags,
        operationId: 'runMonitor',
        summary: 'Run a monitor now',
        description:
          'Due at once: runs at the next poll (within about 30 seconds). A paused monitor is 409 invalid_request. The calling key becomes the key runs are billed on.',
        params: JobIdParams,
        response: {
          202: jsonAnswer('Accepted: the run is due at once; the monitor as it is now', MonitorResponse),
          ...errorResponses,
        },
      },
    },
    async (req, reply) => reply.code(202).send(await runMonitorNow(deps, req.auth, jobIdOf(req.params))),
  )
  app.get(
    '/v1/monitors/:id/runs',
    {
      config: { auth: 'key' },
      schema: {
        tags,
        operationId: 'listMonitorRuns',
        summary: 'Run history',
        description: 'Newest first. Each run keeps its new results for 24 hours (then results is null and results_expired true; the counts stay for 30 days).',
        params: JobIdParams,
        querystring: MonitorRunsQuery,
        response: { 200: MonitorRuns, ...errorResponses },
      },
    },
    async (req) => monitorRuns(deps.store, req.auth.accountId, jobIdOf(req.params), parseInput(MonitorRunsQuery, req, { ignore: ['api_key'] })),
  )
}
