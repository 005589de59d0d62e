import type { IncomingMessage, ServerResponse } from 'node:http'
import { describe, expect, test } from 'vitest'
import { engineSuite } from '../../../test/support/engine-suite.ts'
import { fixture } from '../../../test/support/fake-upstream.ts'

/**
 * Bing's local pack through the HTTP API: /v1/search with engine=bing answered by a fake Bing on
 * loopback, from the saved coffee page (a 2021 local pack), a constructed hotels page and a page
 * without a pack; the pack comes back as `places`.
 */
const PAGES: Record<string, string> = {
  coffee: 'serp/bing/web/zlurad-coffee-nojs.html',
  'hotels in seattle': 'serp/bing/local/hotels-seattle.constructed.html',
  bing: 'serp/bing/web/zlurad-bing-nojs.html',
}

function answer(req: IncomingMessage, res: ServerResponse) {
  const q = new URL(req.url ?? '/', 'https://www.bing.com').searchParams.get('q') ?? ''
  const file = req.headers['x-forwarded-host'] === 'www.bing.com' ? PAGES[q] : undefined
  if (!file) return res.writeHead(404).end()
  res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(fixture(file))
}

const suite = engineSuite(answer, { credits: 100 })

const search = async (q: string, extra = '') => {
  const res = await suite.get('/v1/search', `q=${encodeURIComponent(q)}&engine=bing${extra}`)
  return { status: res.status, body: (await res.json()) as Record<string, unknown> & { results: unknown[]; places: unknown } }
}

describe('engine=bing: the local pack as places', () => {
  test('a hotels page answers its cards with name, rating, reviews, class, address, phone and website', async () => {
    const { status, body } = await search('hotels in seattle')
    expect(status).toBe(200)
    expect(body.results).toHaveLength(2)
    expect(body.places).toEqual([
      {
        position: 1,
        title: 'Harborview Grand Hotel',
        rating: 4.5,
        rating_count: 2841,
        type: '4-star hotel',
        address: '1200 Harbor Ave, Seattle, WA 98101',
        phone_number: '(206) 555-0143',
        website: 'https://www.harborview-grand.example/',
      },
      {
        position: 2,
        title: 'Pike Lane Inn',
        rating: 4,
        rating_count: 1200,
        type: '3-star hotel',
        address: '86 Pike St, Seattle, WA 98101',
        phone_number: '+1 206-555-0178',
      },
      { position: 3, title: 'Queen Anne Hostel', rating: 3.8, rating_count: 412, type: 'Hostel', address: '15 W Roy St, Seattle, WA 98119' },
    ])
    expect((body.meta as { engine: string }).engine).toBe('bing')
  })

  test('the saved 2021 coffee page answers its five cafés; compact output keeps title, address and rating', async () => {
    const { body } = await search('coffee')
    const places = body.places as { title: string; rating?: number; rating_count?: number; phone_number?: string }[]
    expect(places.map((p) => p.title)).toEqual(['Brew Coffee', 'Coffee', 'SKYE Coffee', 'Three Marks Coffee', 'Dalston Coffee'])
    expect(places[4]).toMatchObject({ rating: 5, rating_count: 67, phone_number: '600 628 803' })
    const compact = await search('coffee', '&format=compact')
    expect(compact.status).toBe(200)
    expect((compact.body.places as unknown[])[4]).toEqual({ title: 'Dalston Coffee', address: 'Carrer de Ramelleres, 16-20, 08001, Barcelona', rating: 5 })
  })

  test('a page without a local pack answers places: null', async () => {
    const { status, body } = await search('bing')
    expect(status).toBe(200)
    expect(body.results.length).toBeGreaterThan(0)
    expect(body.places).toBeNull()
  })
})
