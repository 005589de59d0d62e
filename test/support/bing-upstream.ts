import type { IncomingMessage, ServerResponse } from 'node:http'
import { type FakeUpstream, fakeUpstream, fixture } from './fake-upstream.ts'

/**
 * A fake www.bing.com that behaves as Bing does with a mixed-up locale (serpapi/public-roadmap#4259):
 * a `/search` whose `mkt`, `setlang`, `cc`, `_EDGE_CD` / `_EDGE_S` cookies and Accept-Language do not
 * name one language and one country is answered 200 with a saved page of another query (off-topic
 * results, no error); a consistent one gets the saved page of its own query. Plain HTTP on
 * 127.0.0.1, reached through TRAWL_UPSTREAM_HOSTS (X-Forwarded-Host names the engine host).
 */

/** Saved pages by query; a query not listed gets a 404 (a wrong URL fails the test). */
export const BING_PAGES: Record<string, string> = {
  'javascript tutorial': 'serp/bing/web/wsmcp-javascript-tutorial-http-2026.html',
  'great blue heron sound': 'serp/bing/web/aql-great-blue-heron-sound.html',
}

/** What a mixed-up locale gets: results for something else entirely. */
export const BING_OFF_TOPIC = 'serp/bing/web/aql-team-liquid-teams.html'

export interface BingSeen {
  url: string
  cookie: string
  acceptLanguage: string
  /** Why the locale did not hold together, or null when it did. */
  mismatch: string | null
}

export interface BingUpstream extends FakeUpstream {
  requests: BingSeen[]
}

/** A language tag as (language, region?): `pt-BR` → pt, BR; `zh-Hant-TW` → zh, TW; `no` reads as `nb` (Bokmål). */
function readTag(tag: string): { lang: string; region?: string } {
  const parts = tag.trim().split(/[-_]/)
  const lang = (parts[0] ?? '').toLowerCase()
  const region = parts.slice(1).find((p) => /^[A-Za-z]{2}$/.test(p))
  return { lang: lang === 'no' ? 'nb' : lang, ...(region ? { region: region.toUpperCase() } : {}) }
}

/** `a=1&b=2` inside one cookie's value, as Bing's _EDGE cookies carry their fields. */
function cookieFields(cookie: string, name: string): Map<string, string> | undefined {
  const pair = cookie
    .split(';')
    .map((c) => c.trim())
    .find((c) => c.startsWith(`${name}=`))
  if (pair === undefined) return undefined
  return new Map(new URLSearchParams(pair.slice(name.length + 1)))
}

/**
 * Why a Bing request's locale does not hold together, or null when every place that names a
 * language names the same one and every place that names a country names `cc`'s: `mkt`, `setlang`,
 * `cc`, `_EDGE_CD` (`m`, `u`), `_EDGE_S` (`mkt`, `ui`) and the first tag of Accept-Language; and a
 * market in the cookies only when `mkt` sends that same market.
 */
export function bingLocaleMismatch(url: URL, headers: { cookie?: string; acceptLanguage?: string }): string | null {
  const q = url.searchParams
  const cc = q.get('cc')?.toUpperCase()
  if (!cc) return 'no cc'
  const cookie = headers.cookie ?? ''
  const edgeCd = cookieFields(cookie, '_EDGE_CD')
  const edgeS = cookieFields(cookie, '_EDGE_S')
  const mkt = q.get('mkt') ?? undefined
  const named: [string, string | undefined][] = [
    ['mkt', mkt],
    ['setlang', q.get('setlang') ?? undefined],
    ['_EDGE_CD m', edgeCd?.get('m')],
    ['_EDGE_CD u', edgeCd?.get('u')],
    ['_EDGE_S mkt', edgeS?.get('mkt')],
    ['_EDGE_S ui', edgeS?.get('ui')],
    ['Accept-Language', headers.acceptLanguage?.split(',')[0]],
  ]
  let language: string | undefined
  for (const [where, tag] of named) {
    if (!tag) continue
    const { lang, region } = readTag(tag)
    language ??= lang
    if (lang !== language) return `${where} names language ${lang}, another part names ${language}`
    if (region && region !== cc) return `${where} names country ${region}, cc is ${cc}`
  }
  for (const [where, market] of [
    ['_EDGE_CD m', edgeCd?.get('m')],
    ['_EDGE_S mkt', edgeS?.get('mkt')],
  ] as const) {
    if (market && market.toLowerCase() !== mkt?.toLowerCase()) return `${where} claims market ${market}, mkt is ${mkt ?? 'not sent'}`
  }
  return null
}

function answer(requests: BingSeen[]) {
  return (req: IncomingMessage, res: ServerResponse) => {
    const host = String(req.headers['x-forwarded-host'] ?? '')
    const url = new URL(req.url ?? '/', `https://${host}`)
    const page = BING_PAGES[url.searchParams.get('q') ?? '']
    if (host !== 'www.bing.com' || url.pathname !== '/search' || !page) return res.writeHead(404).end()
    const cookie = String(req.headers.cookie ?? '')
    const acceptLanguage = String(req.headers['accept-language'] ?? '')
    const mismatch = bingLocaleMismatch(url, { cookie, acceptLanguage })
    requests.push({ url: url.href, cookie, acceptLanguage, mismatch })
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(fixture(mismatch ? BING_OFF_TOPIC : page))
  }
}

/** The fake Bing on 127.0.0.1; `requests` lists what it was asked and why a locale was refused. */
export async function bingUpstream(): Promise<BingUpstream> {
  const requests: BingSeen[] = []
  const server = await fakeUpstream(answer(requests))
  return Object.assign(server, { requests })
}
