import type { PatentResult, VerticalPage, VerticalRequest } from '../../engine.types.ts'
import { confirmEmpty, qualityOf } from '../../parse/quality.ts'
import { compact, htmlText } from '../google-dom.util.ts'

const PATENT_PAGE = 'https://patents.google.com/patent/'
const IMAGE_BUCKET = 'https://patentimages.storage.googleapis.com/'

type Json = Record<string, unknown>
const isObject = (v: unknown): v is Json => !!v && typeof v === 'object' && !Array.isArray(v)
const asArray = (v: unknown): unknown[] => (Array.isArray(v) ? v : [])

/** One page of Patents results; `req` (page, num) offsets positions. Unreadable bodies give 'empty'. */
export function parseGooglePatents(body: string, req?: Pick<VerticalRequest, 'page' | 'num'>): VerticalPage<PatentResult> {
  const data = parseJson(body)
  const root = isObject(data) ? data.results : undefined
  if (!isObject(root)) return { results: [], parse_quality: 'empty' }
  const offset = ((req?.page ?? 1) - 1) * (req?.num ?? 10)

  const results: PatentResult[] = []
  let failed = 0
  for (const cluster of asArray(root.cluster)) {
    for (const entry of asArray(isObject(cluster) ? cluster.result : undefined)) {
      // Non-patent literature ("scholar/…" entries) shows up only when asked for; it is not a patent.
      if (isObject(entry) && typeof entry.id === 'string' && entry.id.startsWith('scholar/')) continue
      const item = isObject(entry) ? patentOf(entry) : null
      if (!item) {
        failed++
        continue
      }
      results.push({ position: offset + results.length + 1, ...item })
    }
  }

  const page: VerticalPage<PatentResult> = confirmEmpty({ results, parse_quality: qualityOf(results.length, failed) })
  const total = countOf(root.total_num_results)
  if (total !== undefined && results.length) page.total_results = total
  return page
}

function patentOf(entry: Json): Omit<PatentResult, 'position'> | null {
  const p = entry.patent
  if (!isObject(p)) return null
  const fromId = /^patent\/([^/]+)\/([a-z]{2,3})$/i.exec(typeof entry.id === 'string' ? entry.id : '')
  const publication_number = text(p.publication_number) || fromId?.[1] || ''
  const title = text(p.title)
  if (!publication_number || !title) return null
  const language = text(p.language) || fromId?.[2] || undefined
  const firstFigure = asArray(p.figures).find(isObject)
  return compact({
    title,
    snippet: text(p.snippet),
    link: `${PATENT_PAGE}${encodeURIComponent(publication_number)}/${language ?? 'en'}`,
    publication_number,
    priority_date: isoDate(p.priority_date),
    filing_date: isoDate(p.filing_date),
    grant_date: isoDate(p.grant_date),
    publication_date: isoDate(p.publication_date),
    inventor: text(p.inventor),
    assignee: text(p.assignee),
    language,
    pdf_url: assetUrl(p.pdf),
    thumbnail_url: assetUrl(p.thumbnail) ?? assetUrl(firstFigure?.thumbnail),
  })
}

/** JSON with or without the `)]}'` prefix; undefined when the body is not JSON. */
function parseJson(body: string): unknown {
  const trimmed = body.replace(/^\s*\)\]\}'\s*,?/, '').trim()
  if (!trimmed.startsWith('{') && !trimmed.startsWith('[')) return undefined
  try {
    return JSON.parse(trimmed)
  } catch {
    return undefined
  }
}

function text(v: unknown): string {
  if (typeof v === 'string') return htmlText(v)
  // Some fields may arrive as lists of names.
  if (Array.isArray(v))
    return v
      .filter((x): x is string => typeof x === 'string')
      .map(htmlText)
      .filter(Boolean)
      .join(', ')
  return ''
}

/** "2020-03-17", "20200317" or 20200317 to "2020-03-17"; anything else to undefined. */
export function isoDate(v: unknown): string | undefined {
  const s = typeof v === 'number' ? String(v) : typeof v === 'string' ? v.trim() : ''
  const m = /^(\d{4})-?(\d{2})-?(\d{2})(?:$|T)/.exec(s)
  if (!m) return undefined
  const [, y, mo, d] = m
  if (Number(mo) < 1 || Number(mo) > 12 || Number(d) < 1 || Number(d) > 31) return undefined
  return `${y}-${mo}-${d}`
}

/** Paths on the image bucket ("e7/2b/…/US10594250.pdf") become absolute URLs; absolute ones stay. */
export function assetUrl(v: unknown): string | undefined {
  if (typeof v !== 'string' || !v.trim()) return undefined
  const s = v.trim()
  if (/^https?:\/\//i.test(s)) return s
  if (s.startsWith('//')) return `https:${s}`
  return IMAGE_BUCKET + s.replace(/^\/+/, '')
}

function countOf(v: unknown): number | undefined {
  const n = typeof v === 'number' ? v : typeof v === 'string' && /^\d+$/.test(v.trim()) ? Number(v) : Number.NaN
  return Number.isSafeInteger(n) && n >= 0 ? n : undefined
}
