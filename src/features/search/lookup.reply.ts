import type { FastifyReply, FastifyRequest } from 'fastify'
import type { LookupOutcome } from '../../billing/billed-lookup.ts'
import { setBillingHeaders } from '../../http/billing-headers.ts'
import { countTokens, countTokensOnce } from '../../text/tokens.ts'
import { type OutputOptions, type ResponseBody, renderSearchReply, type Vertical } from './output/output.ts'

/** Renders a billed lookup in the asked format and sends it with the billing headers (http/billing-headers.ts). */
export async function sendLookup(
  req: FastifyRequest,
  reply: FastifyReply,
  vertical: Vertical,
  outcome: LookupOutcome<ResponseBody>,
  output: OutputOptions,
  usdPerCredit: number,
) {
  const rendered = renderSearchReply(vertical, outcome.body, output)
  const tokens = outcome.cacheHit
    ? // A replayed body renders the same text every time: count it once per cache entry and format.
      await countTokensOnce(`${outcome.cacheKey}|${output.format}|${output.fields ?? ''}`, rendered.tokensText)
    : await countTokens(rendered.tokensText())
  setBillingHeaders(req, reply, { usedMc: outcome.usedMc, balanceMc: outcome.balanceMc, cacheHit: outcome.cacheHit, tokens }, usdPerCredit)
  return reply.type(rendered.contentType).send(rendered.payload)
}
