import type { FastifyReply, FastifyRequest } from 'fastify'
import { toCredits } from '../../../billing/money.ts'
import { sendBilledJson } from '../../../http/billing-headers.ts'

/** What one Trawl call billed, as every billed service reports it. */
interface Billed {
  usedMc: number
  balanceMc: number | null
  cacheHit: boolean
}

/**
 * The Trawl calls one Tavily request made (a search and its page reads, images…): each billed and
 * settled on its own, as the equivalent REST calls would be; the answer's headers add them up.
 */
export interface Charges {
  add(outcome: Billed): void
  readonly usedMc: number
  readonly balanceMc: number | null
  readonly cacheHit: boolean
}

export function noCharges(): Charges {
  let usedMc = 0
  let balanceMc: number | null = null
  let calls = 0
  let hits = 0
  return {
    add(outcome) {
      usedMc += outcome.usedMc
      if (outcome.balanceMc != null) balanceMc = outcome.balanceMc
      calls++
      if (outcome.cacheHit) hits++
    },
    get usedMc() {
      return usedMc
    },
    get balanceMc() {
      return balanceMc
    },
    get cacheHit() {
      return calls > 0 && hits === calls
    },
  }
}

/** A site's /favicon.ico: the address, not checked (Tavily's include_favicon). */
export function favicon(url: string): string | undefined {
  try {
    return `${new URL(url).origin}/favicon.ico`
  } catch {
    return undefined
  }
}

/**
 * Sends a Tavily answer: `response_time`, `request_id` and (with include_usage) `usage.credits`
 * filled in, the billing headers every billed Trawl answer carries, and the body fields that
 * were ignored (names reduced to safe header characters).
 */
export function sendTavily(
  req: FastifyRequest,
  reply: FastifyReply,
  body: object,
  charges: Pick<Charges, 'usedMc' | 'balanceMc' | 'cacheHit'>,
  opts: { usage?: boolean; usdPerCredit: number; ignored?: string[] },
) {
  const ignored = (opts.ignored ?? [])
    .map((name) => name.replace(/[^\w.-]/g, '').slice(0, 64))
    .filter(Boolean)
    .slice(0, 20)
  if (ignored.length > 0) reply.header('x-trawl-ignored-parameters', ignored.join(', '))
  const full = {
    ...body,
    response_time: Math.round(performance.now() - req.startedAt) / 1000,
    request_id: req.id,
    ...(opts.usage && { usage: { credits: toCredits(charges.usedMc) } }),
  }
  return sendBilledJson(req, reply, JSON.stringify(full), charges, opts.usdPerCredit)
}
