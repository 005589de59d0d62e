/**
 * Builds the Google News request: the RSS search feed (`news.google.com/rss/search`). The feed is
 * plain XML with every item's title, publisher, publisher site and date, needs no JavaScript, and
 * holds up to about 100 items in one response (it has no paging parameter).
 */

import { compileSiteOperators } from '../../domain-filter.ts'
import type { VerticalRequest } from '../../engine.types.ts'
import type { GoogleRequest } from '../google-search.url.ts'
import { googleHeaders } from '../google-search.url.ts'

const ENDPOINT = 'https://news.google.com/rss/search'

// The feed has no tbs; recency is the `when:` query operator, in hours or days.
const WHEN: Record<NonNullable<VerticalRequest['time']>, string> = {
  hour: '1h',
  day: '1d',
  week: '7d',
  month: '30d',
  year: '365d',
}
const QDR_DAYS: Record<string, number> = { d: 1, w: 7, m: 30, y: 365 }

// Countries whose Spanish Google News edition is Latin American Spanish (ceid `MX:es-419`).
const ES_419_COUNTRIES = new Set('ar bo cl co cr cu do ec gt hn mx ni pa pe pr py sv us uy ve'.split(' '))

/** The feed URL and headers for `req`. `location` / `uule` have no feed equivalent and are not sent. */
export function buildGoogleNewsRequest(req: VerticalRequest): GoogleRequest {
  const language = req.language ?? 'en'
  const country = (req.country ?? 'us').toUpperCase()
  const sites = compileSiteOperators(req.include_domains ?? [], req.exclude_domains ?? [])
  const q = [req.q ?? '', sites, ...timeOperators(req)].filter(Boolean).join(' ')
  const params: [string, string][] = [
    ['q', q],
    ['hl', language.includes('-') ? language : `${language}-${country}`],
    ['gl', country],
    ['ceid', `${country}:${ceidLanguage(language, country)}`],
  ]
  const query = params.map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join('&')
  return {
    url: `${ENDPOINT}?${query}`,
    headers: { ...googleHeaders(language), Accept: 'application/rss+xml,application/xml;q=0.9,text/xml;q=0.8,*/*;q=0.5' },
  }
}

/**
 * `time` and the parts of a raw `tbs` the feed can express: `qdr:<unit>[n]` as `when:`, a
 * `cdr:1,cd_min:M/D/YYYY,cd_max:M/D/YYYY` range as `after:` / `before:`. `time` wins over a qdr.
 */
export function timeOperators(req: VerticalRequest): string[] {
  const ops: string[] = []
  const tbs = new Map<string, string>()
  for (const part of (req.tbs ?? '').split(',')) {
    const i = part.indexOf(':')
    if (i > 0) tbs.set(part.slice(0, i).trim(), part.slice(i + 1).trim())
  }
  if (req.time) ops.push(`when:${WHEN[req.time]}`)
  else {
    const qdr = /^([hdwmy])(\d*)$/.exec(tbs.get('qdr') ?? '')
    if (qdr?.[1]) {
      const n = Number(qdr[2] || '1')
      ops.push(qdr[1] === 'h' ? `when:${n}h` : `when:${n * (QDR_DAYS[qdr[1]] ?? 1)}d`)
    }
  }
  if (tbs.get('cdr') === '1') {
    const min = isoDate(tbs.get('cd_min'))
    const max = isoDate(tbs.get('cd_max'))
    if (min) ops.push(`after:${min}`)
    if (max) ops.push(`before:${max}`)
  }
  return ops
}

/** Google's "M/D/YYYY" range dates as YYYY-MM-DD. */
function isoDate(s: string | undefined): string | undefined {
  const m = /^(\d{1,2})\/(\d{1,2})\/(\d{4})$/.exec(s ?? '')
  if (!m?.[1] || !m[2] || !m[3]) return undefined
  return `${m[3]}-${m[1].padStart(2, '0')}-${m[2].padStart(2, '0')}`
}

/** The language part of `ceid`: Google's edition code (BR:pt-419, MX:es-419, TW:zh-Hant), else the base language. */
export function ceidLanguage(language: string, country: string): string {
  const [base = language, region] = language.toLowerCase().split('-')
  const cc = country.toLowerCase()
  if (base === 'pt') return cc === 'br' || region === 'br' ? 'pt-419' : cc === 'pt' ? 'pt-150' : 'pt'
  if (base === 'es' && (ES_419_COUNTRIES.has(cc) || region === '419')) return 'es-419'
  if (base === 'zh') return region === 'tw' || region === 'hk' || cc === 'tw' || cc === 'hk' ? 'zh-Hant' : 'zh-Hans'
  return base
}
