/** Credits on the wire are decimals (0.5); inside they are integer millicredits so sums never drift. */
export const MC_PER_CREDIT = 1000

export const toMc = (credits: number) => Math.round(credits * MC_PER_CREDIT)
export const toCredits = (mc: number) => mc / MC_PER_CREDIT

/** UTC calendar month and day: the periods of key limits, spend caps and daily limits. */
export function periods(now = new Date()) {
  const t = now.getTime()
  // Every debit asks; the answer changes once a day.
  if (t < today.start || t >= today.start + DAY_MS) {
    const iso = now.toISOString()
    today = { start: t - (t % DAY_MS), month: iso.slice(0, 7), day: iso.slice(0, 10) }
  }
  return { month: today.month, day: today.day }
}

const DAY_MS = 86_400_000
let today = { start: Number.POSITIVE_INFINITY, month: '', day: '' }
