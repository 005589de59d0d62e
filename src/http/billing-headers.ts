import type { FastifyReply, FastifyRequest } from 'fastify'
import { toCredits } from '../billing/money.ts'

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
