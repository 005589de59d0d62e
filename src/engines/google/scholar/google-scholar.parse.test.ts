import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { fixture } from '../../../../test/support/fake-upstream.ts'
import { detectScholarBlock } from './google-scholar.block.ts'
import { parseGoogleScholar, resolveScholarLink, yearOf } from './google-scholar.parse.ts'

const CONSTRUCTED = new URL('../../../../test/fixtures/google/scholar/', import.meta.url)
const constructed = (name: string) => readFileSync(new URL(name, CONSTRUCTED), 'utf8')

describe('constructed page: "coral reef bleaching"', () => {
  const page = parseGoogleScholar(constructed('scholar-coral-bleaching.constructed.html'))
  const byId = (id: string) => page.results.find((r) => r.id === id)

  it('reads the 10 results in order, skips the author-profile block, and the total', () => {
    expect(page.parse_quality).toBe('ok')
    expect(page.total_results).toBe(187000)
    expect(page.results.map((r) => r.position)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10])
    expect(page.results.map((r) => r.id)).toEqual([
      'Xk3p9QvR2mEJ',
      'bN7tY0wq4ZcJ',
      'Lq2Hs8vE5tQJ',
      'Vd4Kp1nM7sYJ',
      'Qw8eR5tY2uIJ',
      'Ht6Gf3dS1aPJ',
      'Mn5Bv2cX9zLJ',
      'Pk1Jh4gF6dSJ',
      'Wr3Ed6cV8bNJ',
      'Ty7Ui4oP0aSJ',
    ])
    expect(page.results.some((r) => r.title.startsWith('User profiles'))).toBe(false)
  })

  it('fills every field of an article with a side PDF link', () => {
    expect(page.results[0]).toEqual({
      position: 1,
      title: 'Thermal stress thresholds and recurrent mass bleaching of reef-building corals',
      link: 'https://www.int-res.com/abstracts/meps/v571/p1-15/',
      domain: 'int-res.com',
      publication_info: 'TP Hardy, JL Kerr, M Okafor, SR Lindqvist… - Marine Ecology Progress …, 2017 - int-res.com',
      snippet:
        '… Mass bleaching of corals followed each marine heatwave in the record. We show that accumulated heat stress above a regional threshold predicts the extent of bleaching across …',
      year: 2017,
      cited_by: 1204,
      pdf_url: 'https://www.researchgate.net/profile/Tessa-Hardy/publication/318204417_Thermal_stress_thresholds.pdf',
      id: 'Xk3p9QvR2mEJ',
    })
  })

  it('uses the title link as pdf_url when the title is labelled [PDF], without the label in the title', () => {
    const r = byId('bN7tY0wq4ZcJ')!
    expect(r.title).toBe('Monitoring coral reef bleaching from satellite sea surface temperatures')
    expect(r.pdf_url).toBe('https://www.coris.noaa.gov/activities/reef_bleaching_2010/bleaching_report.pdf')
    expect(r.pdf_url).toBe(r.link)
    expect(r.year).toBe(2010)
    expect(r.cited_by).toBe(88)
  })

  it('gives no pdf_url for an [HTML] side link', () => {
    const r = byId('Lq2Hs8vE5tQJ')!
    expect(r.pdf_url).toBeUndefined()
    expect(r.cited_by).toBe(3117)
    expect(r.domain).toBe('nature.com')
  })

  it('keeps a [BOOK] with its link and a [CITATION] with its title but no link', () => {
    const book = byId('Vd4Kp1nM7sYJ')!
    expect(book.title).toBe('Coral reefs under a warming ocean: patterns, processes and consequences')
    expect(book.domain).toBe('books.google.com')
    expect(book.link).toContain('id=Qm3xAAAAQBAJ')
    expect(book.cited_by).toBe(452)
    expect(byId('Qw8eR5tY2uIJ')).toEqual({
      position: 5,
      title: 'Bleaching of corals in the Andaman Sea',
      publication_info: 'P Ranganathan - Indian Journal of Marine Sciences, 1999',
      year: 1999,
      cited_by: 12,
      id: 'Qw8eR5tY2uIJ',
    })
  })

  it('unwraps /scholar_url redirects and decodes entities', () => {
    const r = byId('Ht6Gf3dS1aPJ')!
    expect(r.link).toBe('https://onlinelibrary.wiley.com/doi/abs/10.1111/gcb.15521')
    expect(r.domain).toBe('onlinelibrary.wiley.com')
    expect(r.title).toBe('Réponse des coraux au blanchissement & à l’acidification des océans')
    expect(r.cited_by).toBeUndefined()
    expect(r.year).toBe(2021)
  })

  it('leaves out year and snippet when the page has none', () => {
    const r = byId('Pk1Jh4gF6dSJ')!
    expect(r.publication_info).toBe('J Moreau - Reef Encounter - reefbase.org')
    expect(r.year).toBeUndefined()
    expect(r.snippet).toBeUndefined()
    expect(r.cited_by).toBeUndefined()
  })

  it('offsets positions by page and num', () => {
    const p2 = parseGoogleScholar(constructed('scholar-coral-bleaching.constructed.html'), { page: 2, num: 10 })
    expect(p2.results[0]?.position).toBe(11)
    expect(p2.results.at(-1)?.position).toBe(20)
  })
})

describe('pages without results', () => {
  it('treats "did not match any articles" as empty, not blocked', () => {
    const html = constructed('scholar-no-match.constructed.html')
    expect(parseGoogleScholar(html)).toEqual({ results: [], parse_quality: 'empty' })
    expect(detectScholarBlock({ status: 200, url: 'https://scholar.google.com/scholar?q=qxzvplk', body: html })).toBeNull()
  })

  it('marks result containers it cannot read as partial', () => {
    const html = constructed('scholar-coral-bleaching.constructed.html').replace(
      '<h3 class="gs_rt" ontouchstart="gs_evt_dsp(event)"><a id="Wr3Ed6cV8bNJ"',
      '<h4 class="x"><a id="Wr3Ed6cV8bNJ"',
    )
    const page = parseGoogleScholar(html.replace('Coral bleaching</b>: a review of the causes and consequences</a></h3>', 'x</a></h4>'))
    expect(page.parse_quality).toBe('partial')
    expect(page.results).toHaveLength(9)
  })
})

describe('Scholar block page (real capture aql-muhammed-rashid)', () => {
  const html = fixture('serp/google/scholar/aql-muhammed-rashid.html').toString('utf8')

  it('is refused by the Scholar detector although the web detector lets it through', async () => {
    const { detectGoogleBlock } = await import('../google-block.detect.ts')
    const res = { status: 200, url: 'https://scholar.google.com/scholar?q=Muhammed+Rashid', body: html }
    expect(detectGoogleBlock(res)).toBeNull()
    expect(detectScholarBlock(res)?.reason).toBe('Google Scholar CAPTCHA form')
  })

  it('is never parsed as results, though it prints a result count', () => {
    expect(html).toContain('About 11,300 results')
    expect(parseGoogleScholar(html)).toEqual({ results: [], parse_quality: 'empty' })
  })

  it('refuses a /sorry/ redirect and a 403 "automated queries" page', () => {
    expect(detectScholarBlock({ status: 302, url: 'https://www.google.com/sorry/index?continue=https://scholar.google.com/scholar', body: '' })).not.toBeNull()
    const sorry = "<html><body><h1>We're sorry...</h1><p>... but your computer or network may be sending automated queries.</p></body></html>"
    expect(detectScholarBlock({ status: 403, url: 'https://scholar.google.com/scholar?q=x', body: sorry })?.reason).toMatch(/automated queries/)
  })
})

describe('helpers', () => {
  it('yearOf reads the year between the authors and the host', () => {
    expect(yearOf('F Gemperle, C Kasabach - digest of papers …, 1998 - ieeexplore.ieee.org')).toBe(1998)
    expect(yearOf('H Caesar - 2019')).toBe(2019)
    expect(yearOf('A Author - Journal - 2001.example.org')).toBeUndefined()
    expect(yearOf('')).toBeUndefined()
  })

  it('resolveScholarLink resolves relative links and drops javascript ones', () => {
    expect(resolveScholarLink('/scholar_url?url=https%3A%2F%2Fexample.org%2Fa.pdf&hl=en')).toBe('https://example.org/a.pdf')
    expect(resolveScholarLink('javascript:void(0)')).toBeUndefined()
    expect(resolveScholarLink('/citations?user=x')).toBe('https://scholar.google.com/citations?user=x')
  })
})
