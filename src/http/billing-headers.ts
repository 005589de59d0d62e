import type { FastifyReply, FastifyRequest } from 'fastify'
import { toCredits } from '../billing/money.ts'
import { countTokens } from '../text/tokens.ts'

export interface Billing {
  usedMc: number
  balanceMc: number | null
  cacheHit: boolean
  tokens: number
}

/** The headers every billed response carries (docs/api-reference.md "Headers, answers and formats"). */
export function setBillingHeaders(req: FastifyRequest, reply: FastifyReply, b: Billing, usdPerCredit: number) {
  const credits = toCredits(b.usedMc)
  reply.header('x-credits-used', String(credits))
  if (b.balanceMc != null) reply.header('x-credits-remaining', String(toCredits(b.balanceMc)))
  reply.header('x-cost-usd', String(Number((credits * usdPerCredit).toFixed(6))))
  reply.header('x-cache', b.cacheHit ? 'HIT' : 'MISS')
  reply.header('x-latency-ms', String(latencyMs(req)))
  reply.header('x-tokens-estimate', String(b.tokens))
}

export const latencyMs = (req: FastifyRequest) => Math.round(performance.now() - req.startedAt)

/**
 * Answers 202 for work queued and paid for up front: what queueing it debited is this call's
 * charge (a job refunds what it does not use when it ends); the body, the queued work, counts no tokens.
 */
export function sendQueued(req: FastifyRequest, reply: FastifyReply, debitedMc: number, balanceMc: number | null, usdPerCredit: number, body: unknown) {
  setBillingHeaders(req, reply, { usedMc: debitedMc, balanceMc, cacheHit: false, tokens: 0 }, usdPerCredit)
  return reply.code(202).send(body)
}

/**
 * Sends a billed answer already serialised (`payload`, JSON) with the billing headers, its token
 * estimate counted on the text sent.
 */
export async function sendBilledJson(req: FastifyRequest, reply: FastifyReply, payload: string, charges: Omit<Billing, 'tokens'>, usdPerCredit: number) {
  const { usedMc, balanceMc, cacheHit } = charges
  setBillingHeaders(req, reply, { usedMc, balanceMc, cacheHit, tokens: await countTokens(payload) }, usdPerCredit)
  return reply.type('application/json; charset=utf-8').send(payload)
}
