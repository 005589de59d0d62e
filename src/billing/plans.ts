/** Requests per second per key by rate plan (README.md "What works today"). Enterprise is custom (account.rate_limit_rps). */
export const PLANS = ['free', 'starter', 'growth', 'pro', 'enterprise'] as const
export type Plan = (typeof PLANS)[number]

const RPS: Record<Plan, number> = { free: 5, starter: 20, growth: 50, pro: 100, enterprise: 200 }

export function rateLimitFor(plan: string, customRps: number | null): number {
  if (customRps != null) return customRps
  return RPS[plan as Plan] ?? RPS.free
}

/** A purchase raises the rate plan to the pack's plan, never lowers it. */
export function higherPlan(current: string, bought: string): Plan {
  const rank = (p: string) => PLANS.indexOf(p as Plan)
  return (rank(bought) > rank(current) ? bought : current) as Plan
}
