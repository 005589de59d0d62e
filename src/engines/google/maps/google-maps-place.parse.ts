/**
 * One Google Maps place record (the positional array Maps uses for a business) to a MapsPlace,
 * and where those records sit in the payloads that carry them.
 *
 * Positions inside a record (the same in tbm=map search results and in place details):
 * 2 address lines, 4 rating block (2 price, 3 reviews link, 7 rating, 8 count), 7 website,
 * 9 coordinates (2 lat, 3 lng), 10 fid, 11 title, 13 categories, 18 "title, address",
 * 34 opening hours, 39 address, 72 photos, 78 place id, 178 phone, 203 opening hours (newer form).
 */
import type { MapsPlace } from '../../engine.types.ts'
import { normText } from '../../parse/text.ts'
import { compact, unwrapGoogleUrl } from '../google-dom.util.ts'
import { arrAt, at, cidFromFid, FID_PATTERN, numAt, strAt, unescapeLiteral } from './google-maps-json.ts'

export type PlaceFields = Omit<MapsPlace, 'position'>

/** A place record is an array whose title (11) is text and whose fid (10), when present, is well formed. */
export function isPlaceRecord(rec: unknown): rec is unknown[] {
  if (!Array.isArray(rec) || typeof rec[11] !== 'string' || !rec[11].trim()) return false
  const fid = rec[10]
  return fid === undefined || fid === null || (typeof fid === 'string' && FID_PATTERN.test(fid))
}

/** The fields of one place record; undefined when it is not one. */
export function placeFromRecord(rec: unknown): PlaceFields | undefined {
  if (!isPlaceRecord(rec)) return undefined
  const title = clean(rec[11] as string)
  const fid = strAt(rec, 10)
  const types = (arrAt(rec, 13) ?? []).filter((t): t is string => typeof t === 'string' && t.trim() !== '').map(clean)
  const rating = numAt(rec, 4, 7)
  const count = numAt(rec, 4, 8)
  return compact<PlaceFields>({
    title,
    address: addressOf(rec, title),
    latitude: coordinate(numAt(rec, 9, 2), 90),
    longitude: coordinate(numAt(rec, 9, 3), 180),
    rating: rating !== undefined && rating >= 0 && rating <= 5 ? rating : undefined,
    rating_count: count !== undefined && Number.isInteger(count) && count >= 0 ? count : undefined,
    price_level: textAt(rec, 4, 2),
    type: types[0],
    types,
    website: websiteOf(rec),
    phone_number: textAt(rec, 178, 0, 0),
    opening_hours: openingHoursOf(rec),
    thumbnail_url: thumbnailOf(rec),
    place_id: placeIdOf(rec),
    cid: fid ? cidFromFid(fid) : undefined,
    fid: fid && FID_PATTERN.test(fid) ? fid.toLowerCase() : undefined,
  })
}

/**
 * The place records of a Maps payload, in Google's order, and whether they sat where Google puts
 * them (`known`) or were found by a bounded scan of an unfamiliar layout.
 */
export function placeRecordsOf(data: unknown): { records: unknown[][]; known: boolean } {
  // tbm=map search, 2023-2025: data[0][1] lists entries; entry[14] is the record (entry 0 is a header).
  const listed = (arrAt(data, 0, 1) ?? []).map((entry) => at(entry, 14)).filter(isPlaceRecord)
  if (listed.length) return { records: listed, known: true }
  // tbm=map search, 2026 layout (seen in public scrapers): data[64] lists entries, entry[1] is the record.
  const listed2026 = (arrAt(data, 64) ?? []).map((entry) => at(entry, 1)).filter(isPlaceRecord)
  if (listed2026.length) return { records: listed2026, known: true }
  // A single place (place details, or a search Google answered with one place): data[6].
  const single = at(data, 6)
  if (isPlaceRecord(single) && (strAt(single, 10) || numAt(single, 9, 2) !== undefined)) return { records: [single], known: true }
  return { records: scanForRecords(data), known: false }
}

/** Records anywhere in the first levels of an unfamiliar payload: a title and a fid side by side. */
function scanForRecords(data: unknown): unknown[][] {
  const found: unknown[][] = []
  const seen = new Set<string>()
  const visit = (node: unknown, depth: number) => {
    if (!Array.isArray(node) || depth > 5) return
    const fid = node[10]
    if (isPlaceRecord(node) && typeof fid === 'string' && !seen.has(fid.toLowerCase())) {
      seen.add(fid.toLowerCase())
      found.push(node)
      return
    }
    for (const child of node) visit(child, depth + 1)
  }
  visit(data, 0)
  return found
}

function addressOf(rec: unknown[], title: string): string | undefined {
  const full = strAt(rec, 39)
  if (full) return clean(full)
  const lines = (arrAt(rec, 2) ?? []).filter((l): l is string => typeof l === 'string' && l.trim() !== '')
  if (lines.length) return clean(lines.join(', '))
  const labelled = strAt(rec, 18)
  if (!labelled) return undefined
  const rest = labelled.startsWith(`${title},`) ? labelled.slice(title.length + 1) : labelled
  return clean(rest) || undefined
}

function websiteOf(rec: unknown[]): string | undefined {
  const raw = strAt(rec, 7, 0)
  if (!raw) return undefined
  const url = raw.startsWith('/url?') ? unwrapGoogleUrl(raw) : unescapeLiteral(raw)
  return url && /^https?:\/\//i.test(url) ? url : undefined
}

/** "Monday" → "7 AM–6 PM" (several ranges joined with ", "), from the weekly table Maps shows. */
function openingHoursOf(rec: unknown[]): Record<string, string> | undefined {
  const hours: Record<string, string> = {}
  for (const row of arrAt(rec, 34, 1) ?? []) {
    const day = strAt(row, 0)
    const ranges = (arrAt(row, 1) ?? []).filter((r): r is string => typeof r === 'string')
    if (day && ranges.length) hours[clean(day)] = ranges.map(clean).join(', ')
  }
  if (Object.keys(hours).length) return hours
  // The newer table at 203: [day, weekday number, date, [[text, …], …]].
  for (const row of arrAt(rec, 203, 0) ?? []) {
    const day = strAt(row, 0)
    const ranges = (arrAt(row, 3) ?? []).map((r) => strAt(r, 0)).filter((r): r is string => !!r)
    if (day && ranges.length) hours[clean(day)] = ranges.map(clean).join(', ')
  }
  return Object.keys(hours).length ? hours : undefined
}

function thumbnailOf(rec: unknown[]): string | undefined {
  for (const photo of [at(rec, 72, 0, 0), at(rec, 72, 0, 1)]) {
    const url = strAt(photo, 6, 0)
    if (url && /^https?:\/\//i.test(url)) return unescapeLiteral(url)
  }
  return undefined
}

function placeIdOf(rec: unknown[]): string | undefined {
  const direct = strAt(rec, 78)
  if (direct && /^[A-Za-z0-9_-]{10,200}$/.test(direct)) return direct
  // The reviews link carries it too: https://search.google.com/local/reviews?placeid=ChIJ…
  const link = strAt(rec, 4, 3, 0)
  return link ? /[?&]placeid=([A-Za-z0-9_-]{10,200})/.exec(unescapeLiteral(link))?.[1] : undefined
}

function coordinate(v: number | undefined, limit: number): number | undefined {
  return v !== undefined && Math.abs(v) <= limit ? v : undefined
}

function textAt(rec: unknown[], ...path: number[]): string | undefined {
  const s = strAt(rec, ...path)
  return s ? clean(s) || undefined : undefined
}

/** Maps formats hours with narrow no-break spaces ("7\u202fAM"); plain spaces read better in JSON. */
function clean(s: string): string {
  return normText(s.replace(/[\u202f\u00a0]/g, ' '))
}
