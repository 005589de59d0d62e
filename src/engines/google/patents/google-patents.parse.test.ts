import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { detectPatentsBlock } from './google-patents.block.ts'
import { assetUrl, isoDate, parseGooglePatents } from './google-patents.parse.ts'

const CONSTRUCTED = new URL('../../../../test/fixtures/google/patents/', import.meta.url)
const constructed = (name: string) => readFileSync(new URL(name, CONSTRUCTED), 'utf8')

describe('constructed xhr/query answer: "solar panel cleaning robot"', () => {
  const body = constructed('patents-solar-panel-cleaning-robot.constructed.json')
  const page = parseGooglePatents(body)
  const byNumber = (pn: string) => page.results.find((r) => r.publication_number === pn)!

  it('reads the 10 patents in order with the total', () => {
    expect(page.parse_quality).toBe('ok')
    expect(page.total_results).toBe(28613)
    expect(page.results.map((r) => r.publication_number)).toEqual([
      'US10594250B2',
      'US20190097592A1',
      'EP3392817B1',
      'CN108322061A',
      'WO2020161704A1',
      'US9931278B1',
      'JP2019115118A',
      'US11201583B2',
      'KR102042137B1',
      'US20210362184A1',
    ])
    expect(page.results.map((r) => r.position)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10])
  })

  it('fills every field of a granted patent, highlights stripped and paths made absolute', () => {
    expect(page.results[0]).toEqual({
      position: 1,
      title: 'Autonomous cleaning robot for solar panel arrays',
      snippet:
        'A self-propelled robot travels along a row of solar panels and removes dust with a rotating brush … the robot docks at the end of the row to recharge …',
      link: 'https://patents.google.com/patent/US10594250B2/en',
      publication_number: 'US10594250B2',
      priority_date: '2016-03-14',
      filing_date: '2017-03-13',
      grant_date: '2020-03-17',
      publication_date: '2020-03-17',
      inventor: 'Daniel R. Okonkwo',
      assignee: 'Helios Robotics, Inc.',
      language: 'en',
      pdf_url: 'https://patentimages.storage.googleapis.com/e7/2b/4c/8f1a2d3b5c6e7f/US10594250.pdf',
      thumbnail_url: 'https://patentimages.storage.googleapis.com/1d/9a/55/0c3e7b2a41f6d8/US10594250-20200317-D00000.png',
    })
  })

  it('leaves grant_date out of applications', () => {
    const app = byNumber('US20190097592A1')
    expect(app.grant_date).toBeUndefined()
    expect(app.publication_date).toBe('2019-03-28')
    expect(app.inventor).toBe('Priya Raman, Tomás Echeverría')
  })

  it('decodes entities in names and snippets', () => {
    expect(byNumber('EP3392817B1').assignee).toBe('Sauber Solar GmbH & Co. KG')
    expect(byNumber('US9931278B1').inventor).toBe("Kenji Watanabe, Laura M. O'Neill")
    expect(byNumber('WO2020161704A1').snippet).toBe('An unmanned aerial vehicle carries a cleaning head to the panel surface … "dock-and-wash" mode …')
  })

  it('keeps non-English publications with their language in the link', () => {
    expect(byNumber('CN108322061A')).toMatchObject({
      title: '一种光伏板清洁机器人',
      link: 'https://patents.google.com/patent/CN108322061A/zh',
      language: 'zh',
      inventor: '王建国, 李明',
      assignee: '江苏光能科技有限公司',
    })
    expect(byNumber('KR102042137B1').title).toBe('태양광 패널 청소 로봇')
    expect(byNumber('JP2019115118A').link).toBe('https://patents.google.com/patent/JP2019115118A/ja')
  })

  it('leaves out what a record does not have', () => {
    const wo = byNumber('WO2020161704A1')
    expect(wo.assignee).toBeUndefined() // empty string upstream
    expect(wo.thumbnail_url).toBeUndefined()
    expect(byNumber('US9931278B1').pdf_url).toBeUndefined()
    expect(byNumber('US11201583B2').inventor).toBeUndefined()
    expect(byNumber('JP2019115118A').assignee).toBeUndefined()
  })

  it('offsets positions by page and num', () => {
    const p3 = parseGooglePatents(body, { page: 3, num: 10 })
    expect(p3.results[0]?.position).toBe(21)
  })

  it('is not taken for a block page by the Patents detector', () => {
    expect(detectPatentsBlock({ status: 200, url: 'https://patents.google.com/xhr/query?url=q%3Dx&exp=', body })).toBeNull()
  })
})

describe('other answers', () => {
  it('reads an answer without results as empty', () => {
    expect(parseGooglePatents(constructed('patents-no-results.constructed.json'))).toEqual({ results: [], parse_quality: 'empty', saysNoResults: true })
  })

  it("accepts the )]}' prefix, compact dates, ids without publication_number and skips non-patent literature", () => {
    const body = `)]}'\n${JSON.stringify({
      results: {
        total_num_results: '2',
        cluster: [
          {
            result: [
              { id: 'scholar/1234567890', scholar: { title: 'A paper' } },
              { id: 'patent/DE102019201234A1/de', patent: { title: 'Reinigungsroboter', priority_date: '20190131', publication_date: 20200806 } },
            ],
          },
        ],
      },
    })}`
    expect(parseGooglePatents(body)).toEqual({
      results: [
        {
          position: 1,
          title: 'Reinigungsroboter',
          link: 'https://patents.google.com/patent/DE102019201234A1/de',
          publication_number: 'DE102019201234A1',
          priority_date: '2019-01-31',
          publication_date: '2020-08-06',
          language: 'de',
        },
      ],
      parse_quality: 'ok',
      total_results: 2,
    })
  })

  it('marks records it cannot read as partial and never throws on garbage', () => {
    const body = JSON.stringify({
      results: { cluster: [{ result: [{ id: 'x', patent: { snippet: 'no title' } }, { patent: { title: 'Ok', publication_number: 'US1A' } }] }] },
    })
    const page = parseGooglePatents(body)
    expect(page.parse_quality).toBe('partial')
    expect(page.results.map((r) => r.publication_number)).toEqual(['US1A'])
    expect(parseGooglePatents('')).toEqual({ results: [], parse_quality: 'empty' })
    expect(parseGooglePatents('{"results":')).toEqual({ results: [], parse_quality: 'empty' })
    expect(parseGooglePatents('{"foo":1}')).toEqual({ results: [], parse_quality: 'empty' })
  })
})

describe('block detection', () => {
  const url = 'https://patents.google.com/xhr/query?url=q%3Dx&exp='

  it('refuses the 503 "automated queries" page and any HTML instead of JSON', () => {
    const sorry =
      '<html><head><title>Sorry...</title></head><body><div>Our systems have detected unusual traffic from your computer network.</div><div>...your computer or network may be sending automated queries.</div></body></html>'
    expect(detectPatentsBlock({ status: 503, url, body: sorry })).not.toBeNull()
    expect(
      detectPatentsBlock({ status: 200, url, body: '<!DOCTYPE html><html><body>Please click here if you are not redirected</body></html>' })?.reason,
    ).toMatch(/HTML page instead of JSON/)
    expect(detectPatentsBlock({ status: 302, url: 'https://www.google.com/sorry/index?continue=https://patents.google.com/', body: '' })).not.toBeNull()
    expect(detectPatentsBlock({ status: 429, url, body: '' })).not.toBeNull()
  })

  it('does not read the web heuristics into JSON text', () => {
    const body = JSON.stringify({
      results: { cluster: [{ result: [{ patent: { title: 'Prompting users to update your browser', publication_number: 'US2A' } }] }] },
    })
    expect(detectPatentsBlock({ status: 200, url, body })).toBeNull()
  })
})

describe('helpers', () => {
  it('isoDate normalises day strings and rejects the rest', () => {
    expect(isoDate('2020-03-17')).toBe('2020-03-17')
    expect(isoDate('20200317')).toBe('2020-03-17')
    expect(isoDate(20200317)).toBe('2020-03-17')
    expect(isoDate('2020-13-01')).toBeUndefined()
    expect(isoDate('March 2020')).toBeUndefined()
    expect(isoDate(undefined)).toBeUndefined()
  })

  it('assetUrl prefixes bucket paths and keeps absolute URLs', () => {
    expect(assetUrl('ab/cd/US1.pdf')).toBe('https://patentimages.storage.googleapis.com/ab/cd/US1.pdf')
    expect(assetUrl('https://example.org/x.png')).toBe('https://example.org/x.png')
    expect(assetUrl('//patentimages.storage.googleapis.com/a.png')).toBe('https://patentimages.storage.googleapis.com/a.png')
    expect(assetUrl('')).toBeUndefined()
  })
})
