// Stacked bars of credits per day, drawn as inline SVG (no chart library).
import { credits, html, useEffect, useState } from './lib.js'

export const PALETTE = ['#2563eb', '#f59e0b', '#10b981', '#ef4444', '#8b5cf6', '#06b6d4', '#ec4899', '#84cc16']
const OTHER = '#94a3b8'
const MAX_SERIES = PALETTE.length - 1

/** At most eight series: the largest seven and "other" for the rest. */
export function topSeries(series) {
  if (series.length <= PALETTE.length) return series.map((s, i) => ({ ...s, color: PALETTE[i] }))
  const top = series.slice(0, MAX_SERIES).map((s, i) => ({ ...s, color: PALETTE[i] }))
  const rest = series.slice(MAX_SERIES)
  const days = rest[0].credits.length
  const sum = Array.from({ length: days }, (_, d) => rest.reduce((t, s) => t + (s.credits[d] ?? 0), 0))
  return [...top, { label: `${rest.length} others`, credits: sum, total: sum.reduce((a, b) => a + b, 0), color: OTHER }]
}

/** A round axis maximum at or above `n`: 1, 2, 5 times a power of ten. */
function niceMax(n) {
  if (n <= 0) return 1
  const p = 10 ** Math.floor(Math.log10(n))
  for (const m of [1, 2, 5, 10]) if (m * p >= n) return m * p
  return 10 * p
}

const PHONE = '(max-width: 600px)'

/** Whether the screen is phone-sized now, following rotations and window resizes. */
function useNarrow() {
  const [narrow, setNarrow] = useState(() => matchMedia(PHONE).matches)
  useEffect(() => {
    const query = matchMedia(PHONE)
    const onChange = () => setNarrow(query.matches)
    query.addEventListener('change', onChange)
    return () => query.removeEventListener('change', onChange)
  }, [])
  return narrow
}

export function StackedBars({ days, series, title }) {
  // A narrower drawing on phones keeps the axis text readable once scaled to the screen.
  const narrow = useNarrow()
  const W = narrow ? 360 : 720
  const H = narrow ? 220 : 240
  const every = narrow ? 10 : 5
  const left = 48
  // Room for half of the last day's label, centred under the last bar (its "MM-DD" is about 30 px wide).
  const right = 20
  const top = 12
  const bottom = 28
  const plotW = W - left - right
  const plotH = H - top - bottom
  const totals = days.map((_, d) => series.reduce((t, s) => t + (s.credits[d] ?? 0), 0))
  const max = niceMax(Math.max(0, ...totals))
  const band = plotW / Math.max(1, days.length)
  const barW = Math.max(2, band * 0.72)
  const y = (v) => top + plotH - (v / max) * plotH
  const sum = totals.reduce((a, b) => a + b, 0)
  const bars = []
  days.forEach((day, d) => {
    let acc = 0
    for (const s of series) {
      const v = s.credits[d] ?? 0
      if (v <= 0) continue
      const y0 = y(acc)
      const y1 = y(acc + v)
      acc += v
      bars.push(
        html`<rect x=${(left + d * band + (band - barW) / 2).toFixed(1)} y=${y1.toFixed(1)} width=${barW.toFixed(1)} height=${Math.max(0.5, y0 - y1).toFixed(1)} fill=${s.color}>
          <title>${day} · ${s.label}: ${credits(v)} credits</title>
        </rect>`,
      )
    }
  })
  const ticks = [0, max / 2, max]
  return html`<figure class="chart">
    <svg viewBox=${`0 0 ${W} ${H}`} role="img" aria-label=${`${title}: ${credits(sum)} credits over ${days.length} days`} data-testid="usage-chart">
      ${ticks.map(
        (t) => html`<g key=${t}>
          <line x1=${left} x2=${W - right} y1=${y(t)} y2=${y(t)} class="grid" />
          <text x=${left - 6} y=${y(t) + 4} class="axis" text-anchor="end">${credits(t)}</text>
        </g>`,
      )}
      ${days.map((day, d) =>
        d % every === (days.length - 1) % every
          ? html`<text key=${day} x=${left + d * band + band / 2} y=${H - 8} class="axis" text-anchor="middle">${day.slice(5)}</text>`
          : null,
      )}
      ${bars}
    </svg>
    <figcaption>
      <ul class="legend">
        ${series.map(
          (s) => html`<li key=${s.label}>
            <svg class="swatch" viewBox="0 0 10 10" aria-hidden="true"><rect width="10" height="10" rx="2" fill=${s.color} /></svg>
            ${s.label} <span class="muted">${credits(s.total)}</span>
          </li>`,
        )}
        ${series.length === 0 && html`<li class="muted">No credits spent in this period.</li>`}
      </ul>
    </figcaption>
  </figure>`
}
