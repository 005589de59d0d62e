import { describe, expect, it } from 'vitest'
import { fixture } from '../../../../test/support/fake-upstream.ts'
import type { VerticalRequest } from '../../engine.types.ts'
import type { EngineFetch } from '../../provider.types.ts'
import type { BlockDetector } from '../../upstream/upstream.types.ts'
import { googleScholar } from './google-scholar.ts'

/** A minimal Scholar page in the real markup, one result per id. */
function scholarPage(ids: string[], total = '1,234'): string {
  const results = ids
    .map(
      (id, i) =>
        `<div class="gs_r gs_or gs_scl" data-cid="${id}" data-rp="${i}"><div class="gs_ri"><h3 class="gs_rt"><a id="${id}" href="https://example.org/${id}">Paper ${id}</a></h3>` +
        `<div class="gs_a">A Author&nbsp;- Journal, 2020 - example.org</div><div class="gs_rs">About ${id}.</div>` +
        `<div class="gs_fl"><a href="/scholar?cites=${i + 1}&amp;hl=en">Cited by ${i + 1}</a></div></div></div>`,
    )
    .join('')
  return `<html><body><div id="gs_ab_md"><div class="gs_ab_mdw">About ${total} results (<b>0.03</b> sec)</div></div><div id="gs_res_ccl_mid">${results}</div></body></html>`
}

const ids = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `${prefix}${i}`)

interface Call {
  url: URL
  detectBlock?: BlockDetector
}

function fakeFetch(answer: (url: URL, call: number) => string | Error): { fetch: EngineFetch; calls: Call[] } {
  const calls: Call[] = []
  const fetch: EngineFetch = async (url, _headers, detectBlock) => {
    const u = new URL(url)
    calls.push({ url: u, detectBlock })
    const body = answer(u, calls.length)
    if (body instanceof Error) throw body
    return { status: 200, url, body }
  }
  return { fetch, calls }
}

const req = (r: Partial<VerticalRequest>): VerticalRequest => ({ endpoint: 'scholar', q: 'coral', language: 'en', num: 10, page: 1, ...r })

describe('googleScholar.run', () => {
  it('fetches one page for num=10 and passes a detector that refuses the Scholar CAPTCHA', async () => {
    const { fetch, calls } = fakeFetch(() => scholarPage(ids('a', 10)))
    const answer = await googleScholar.run(req({}), fetch)
    expect(calls).toHaveLength(1)
    expect(calls[0]!.url.origin + calls[0]!.url.pathname).toBe('https://scholar.google.com/scholar')
    expect(answer.results).toHaveLength(10)
    expect(answer.results[9]).toMatchObject({ position: 10, id: 'a9', cited_by: 10, year: 2020 })
    expect(answer.total_results).toBe(1234)
    expect(answer.parse_quality).toBe('ok')

    const captcha = fixture('serp/google/scholar/aql-muhammed-rashid.html').toString('utf8')
    expect(calls[0]!.detectBlock?.({ status: 200, url: 'https://scholar.google.com/scholar?q=x', body: captcha })).not.toBeNull()
    expect(calls[0]!.detectBlock?.({ status: 200, url: 'https://scholar.google.com/scholar?q=x', body: scholarPage(['x']) })).toBeNull()
  })

  it('honours num=50 with consecutive pages of 20, 20 and 10', async () => {
    const { fetch, calls } = fakeFetch((u) => {
      const start = Number(u.searchParams.get('start') ?? 0)
      return scholarPage(ids(`p${start}-`, Number(u.searchParams.get('num'))))
    })
    const answer = await googleScholar.run(req({ num: 50 }), fetch)
    expect(calls.map((c) => [c.url.searchParams.get('start'), c.url.searchParams.get('num')])).toEqual([
      [null, '20'],
      ['20', '20'],
      ['40', '10'],
    ])
    expect(answer.results).toHaveLength(50)
    expect(answer.results.map((r) => r.position)).toEqual(Array.from({ length: 50 }, (_, i) => i + 1))
    expect(answer.results[20]?.id).toBe('p20-0')
    expect(answer.results[49]?.id).toBe('p40-9')
  })

  it('stops when Scholar runs out of results', async () => {
    const { fetch, calls } = fakeFetch(() => scholarPage(ids('a', 7)))
    const answer = await googleScholar.run(req({ num: 100 }), fetch)
    expect(calls).toHaveLength(1)
    expect(answer.results).toHaveLength(7)
    expect(answer.parse_quality).toBe('ok')
  })

  it('drops a cluster Scholar repeats on the next page', async () => {
    const { fetch } = fakeFetch((_u, n) => (n === 1 ? scholarPage(ids('a', 20)) : scholarPage(['a19', ...ids('b', 9)])))
    const answer = await googleScholar.run(req({ num: 30 }), fetch)
    expect(answer.results).toHaveLength(29)
    expect(answer.results.filter((r) => r.id === 'a19')).toHaveLength(1)
    expect(answer.results[20]).toMatchObject({ position: 21, id: 'b0' })
  })

  it('keeps earlier pages as partial when a later page is refused, and rethrows a refused first page', async () => {
    const blocked = new Error('upstream_blocked')
    const later = fakeFetch((_u, n) => (n === 1 ? scholarPage(ids('a', 20)) : blocked))
    const answer = await googleScholar.run(req({ num: 30 }), later.fetch)
    expect(answer.results).toHaveLength(20)
    expect(answer.parse_quality).toBe('partial')

    const first = fakeFetch(() => blocked)
    await expect(googleScholar.run(req({ num: 30 }), first.fetch)).rejects.toBe(blocked)
  })

  it('offsets positions for later pages', async () => {
    const { fetch, calls } = fakeFetch(() => scholarPage(ids('a', 10)))
    const answer = await googleScholar.run(req({ page: 3 }), fetch)
    expect(calls[0]!.url.searchParams.get('start')).toBe('20')
    expect(answer.results[0]?.position).toBe(21)
  })

  it('answers empty for a page without results', async () => {
    const { fetch } = fakeFetch(
      () => '<html><body><div id="gs_res_ccl_mid"><div class="gs_r"><div class="gs_med">did not match any articles</div></div></div></body></html>',
    )
    expect(await googleScholar.run(req({}), fetch)).toEqual({ results: [], parse_quality: 'empty' })
  })
})
