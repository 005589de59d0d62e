import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { type FakeUpstream, fakeUpstream } from './support/fake-upstream.ts'
import { ADMIN_TOKEN, startTrawl, type Trawl } from './support/start-trawl.ts'

/**
 * Parameter names that are members of Object.prototype (`constructor`, `__proto__`, `toString`,
 * `hasOwnProperty`, `valueOf`) are parameters like any other: a route that refuses an unknown
 * parameter refuses them with a 400 naming them, one that ignores unknown input (Tavily's and
 * SearXNG's shapes, the routes that read no query string) ignores them, and none answers 500. Every
 * route of the OpenAPI document is tried with each name in the query string and in the JSON body.
 */

const NAMES = ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf']
const SITE = 'https://site.trawl.test'

let trawl: Trawl
let upstream: FakeUpstream
let key: string
let accountId: string
beforeAll(async () => {
  // Nothing may reach an engine: every request here is refused before that (or answered 404).
  upstream = await fakeUpstream((_req, res) => res.writeHead(404).end())
  trawl = await startTrawl({ TRAWL_UPSTREAM_HOSTS: `*=${upstream.url}`, TRAWL_UPSTREAM_TIMEOUT_MS: '800', TRAWL_SITE_URL: `${SITE}/` })
  const account = await trawl.account({ plan: 'enterprise', rate_limit_rps: 100_000, credits: 100 })
  key = account.key
  accountId = account.id
})
afterAll(async () => {
  await trawl?.close()
  await upstream?.close()
})

interface Answer {
  status: number
  /** The body with request ids blanked and the parameter's name replaced by NAME. */
  text: string
  named: boolean
}

async function send(method: string, path: string, name: string, where: 'query' | 'json', value = '1'): Promise<Answer> {
  const url = `${trawl.base}${path}${where === 'query' ? `${path.includes('?') ? '&' : '?'}${encodeURIComponent(name)}=${value}` : ''}`
  const headers: Record<string, string> = { authorization: `Bearer ${path.startsWith('/admin/') ? ADMIN_TOKEN : key}`, origin: SITE }
  let body: string | undefined
  if (where === 'json') {
    headers['content-type'] = 'application/json'
    body = `{${JSON.stringify(name)}:${value}}`
  }
  const res = await fetch(url, { method, headers, body })
  const raw = await res.text()
  const text = raw
    .replace(/req_[0-9a-z]+/g, 'REQ')
    .split(name)
    .join('NAME')
  return { status: res.status, text, named: raw.includes(`unknown parameter ${name}`) }
}

/** Every operation of /v1/openapi.json, ids as `abc`, plus the operator API (not in the document). */
async function operations(): Promise<{ method: string; path: string; body: boolean }[]> {
  const doc = (await (await fetch(`${trawl.base}/v1/openapi.json`)).json()) as { paths: Record<string, Record<string, unknown>> }
  const ops = Object.entries(doc.paths).flatMap(([path, methods]) =>
    Object.keys(methods).map((m) => ({ method: m.toUpperCase(), path: path.replace(/\{[^}]+\}/g, 'abc'), body: m !== 'get' && m !== 'delete' })),
  )
  const admin = [
    { method: 'POST', path: '/admin/v1/accounts', body: true },
    { method: 'GET', path: `/admin/v1/accounts/${accountId}`, body: false },
    { method: 'PATCH', path: `/admin/v1/accounts/${accountId}`, body: true },
    { method: 'POST', path: `/admin/v1/accounts/${accountId}/credits`, body: true },
    { method: 'POST', path: `/admin/v1/accounts/${accountId}/members`, body: true },
    { method: 'POST', path: `/admin/v1/accounts/${accountId}/keys`, body: true },
  ]
  return [...ops, ...admin]
}

describe('Object.prototype member names as parameters', () => {
  test('every route answers them as it answers any unknown parameter: a 400 naming it where unknown parameters are refused, never a 500', async () => {
    const ops = await operations()
    expect(ops.length).toBeGreaterThan(50)
    const problems: string[] = []
    const refused = new Set<string>()
    for (const op of ops) {
      const places: ['query' | 'json', string][] = [['query', '1']]
      // null too: a null parameter in a body is read as "not sent" by looking the name up in the schema.
      if (op.body) places.push(['json', '1'], ['json', 'null'])
      for (const [where, value] of places) {
        const ordinary = await send(op.method, op.path, 'zzz_unknown', where, value)
        for (const name of NAMES) {
          const label = `${op.method} ${op.path} ${where} ${name}=${value}`
          const answer = await send(op.method, op.path, name, where, value)
          if (answer.status >= 500) problems.push(`${label}: ${answer.status} ${answer.text.slice(0, 160)}`)
          else if (where === 'json' && name === '__proto__') {
            // Refused by the JSON parser itself, before any route reads the body (Fastify's prototype poisoning guard).
            if (answer.status !== 400) problems.push(`${label}: ${answer.status}, not 400`)
          } else if (answer.status !== ordinary.status || (ordinary.status >= 400 && answer.text !== ordinary.text)) {
            // (Successes are compared by status only: they hold fresh ids.)
            problems.push(
              `${label}: ${answer.status} ${answer.text.slice(0, 160)} where an unknown name gets ${ordinary.status} ${ordinary.text.slice(0, 160)}`,
            )
          } else if (ordinary.named) {
            refused.add(`${op.method} ${op.path.split('?')[0]} ${where}`)
            if (answer.status !== 400 || !answer.named) problems.push(`${label}: ${answer.status}, not a 400 naming it`)
          }
        }
      }
    }
    expect(problems).toEqual([])
    // The routes of the finding: search, every vertical, the account, Custom Search, the POST routes,
    // batches, monitors, the playground, the operator API and every Firecrawl-shaped POST.
    const verticals = ['search', 'news', 'images', 'videos', 'maps', 'places', 'shopping', 'scholar', 'patents', 'autocomplete', 'lens', 'reviews', 'rank']
    const expected = [
      ...verticals.flatMap((v) => [`GET /v1/${v} query`, `POST /v1/${v} query`, `POST /v1/${v} json`]),
      'GET /v1/account query',
      'GET /customsearch/v1 query',
      ...['extract', 'webpage', 'context', 'map', 'crawl', 'batches', 'monitors'].flatMap((p) => [`POST /v1/${p} query`, `POST /v1/${p} json`]),
      'PATCH /v1/monitors/abc json',
      'GET /v1/monitors/abc/runs query',
      'GET /playground/search query',
      'POST /playground/search json',
      'POST /admin/v1/accounts json',
      `PATCH /admin/v1/accounts/${accountId} json`,
      `POST /admin/v1/accounts/${accountId}/credits json`,
      `POST /admin/v1/accounts/${accountId}/members json`,
      `POST /admin/v1/accounts/${accountId}/keys json`,
      ...['scrape', 'search', 'map', 'crawl', 'batch/scrape'].map((p) => `POST /compat/firecrawl/v2/${p} json`),
      'GET /compat/firecrawl/v2/crawl/abc query',
      'GET /compat/firecrawl/v2/batch/scrape/abc query',
      ...['search', 'images', 'news', 'places', 'maps', 'videos', 'shopping', 'scholar', 'patents', 'autocomplete'].map((p) => `POST /compat/serper/${p} json`),
    ]
    expect(expected.filter((op) => !refused.has(op))).toEqual([])
  }, 240_000)

  test('inside a batch entry a prototype name is the entry’s own unknown parameter; nothing is charged', async () => {
    const res = await fetch(`${trawl.base}/v1/batches`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ endpoint: 'search', requests: NAMES.filter((n) => n !== '__proto__').map((n) => ({ q: 'coffee', [n]: null })) }),
    })
    const body = (await res.json()) as { error?: unknown; batches?: { error?: { message: string } }[] }
    expect(res.status, JSON.stringify(body)).toBeLessThan(500)
    for (const [i, entry] of (body.batches ?? []).entries()) {
      expect(entry.error?.message).toBe(`unknown parameter ${NAMES.filter((n) => n !== '__proto__')[i]}`)
    }
    expect(res.headers.get('x-credits-used') ?? '0').toBe('0')
  })
})
