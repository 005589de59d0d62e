import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { errorResponses } from '../../../http/error-schema.ts'
import { parseInput } from '../../../http/parse-input.ts'
import { sendLookup } from '../lookup.reply.ts'
import { type OutputFormat, validateOutputOptions } from '../output/output.ts'
import { explainParamElsewhere } from './param-homes.ts'
import { verticalResponse } from './vertical.response.ts'
import { runVertical, type VerticalDeps } from './vertical.service.ts'
import { VERTICAL_SPECS, type VerticalSpec } from './vertical.specs.ts'

/** GET and POST for every vertical other than web search, all through one handler. */
export function verticalRoutes(app: FastifyInstance, deps: VerticalDeps & { usdPerCredit: number }) {
  for (const spec of Object.values(VERTICAL_SPECS)) register(app, deps, spec)
}

function register(app: FastifyInstance, deps: VerticalDeps & { usdPerCredit: number }, spec: VerticalSpec) {
  const schema = spec.schema
  const path = `/v1/${spec.name}`
  const explainUnknown = explainParamElsewhere(path)
  const handler = async (req: FastifyRequest, reply: FastifyReply) => {
    const params = parseInput(schema, req, { ignore: ['api_key'], explainUnknown }) as Record<string, unknown>
    const output = { format: (params.format as OutputFormat | undefined) ?? 'json', fields: params.fields as string | undefined }
    validateOutputOptions(spec.name, output) // before anything is reserved, so a bad one costs nothing
    const request = spec.normalise(params, req.auth)
    const outcome = await runVertical(deps, req.auth, spec, request, { maxAge: params.max_age as number | undefined }, req.id)
    return sendLookup(req, reply, spec.name, outcome, output, deps.usdPerCredit)
  }
  const route = {
    config: { auth: 'key' as const, billed: true },
    schema: { summary: spec.summary, tags: ['search'], description: `${spec.description} GET takes the same parameters in the query string.` },
  }
  const response = { 200: verticalResponse(spec.name), ...errorResponses }
  app.get(path, { ...route, schema: { ...route.schema, operationId: `${spec.name}Get`, querystring: schema, response } }, handler)
  app.post(path, { ...route, schema: { ...route.schema, operationId: spec.name, body: schema, response } }, handler)
}
