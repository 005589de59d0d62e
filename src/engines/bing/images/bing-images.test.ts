import { describe, expect, it } from 'vitest'
import { verticalRequest } from '../../../../test/support/engine-requests.ts'
import { readFixture } from '../../../../test/support/fixtures.ts'
import type { VerticalRequest } from '../../engine.types.ts'
import type { EngineFetch } from '../../provider.types.ts'
import { parseBingImages } from './bing-images.parse.ts'
import { buildBingImagesRequest } from './bing-images.request.ts'
import { bingImages } from './bing-images.ts'

const GRID = readFixture('serp/bing/images/aql-rpg-title-screen.html').toString('utf8')
const req = (r: Partial<VerticalRequest> = {}) => verticalRequest('images', { q: 'RPG Title Screen', ...r })

describe('parseBingImages: the /images/search capture', () => {
  const page = parseBingImages(GRID)

  it('reads every tile of the grid', () => {
    expect(page.parse_quality).toBe('ok')
    expect(page.results).toHaveLength(17)
    expect(page.results.map((r) => r.position)).toEqual(Array.from({ length: 17 }, (_, i) => i + 1))
  })

  it('takes image, thumbnail, page and title from the m JSON and the size from the tile link', () => {
    expect(page.results[0]).toEqual({
      position: 1,
      title: 'RPG Maker for Beginners: Customizing your Title Screen and Your Character - Altered Gamer',
      image_url: 'https://img.bhs4.com/A0/F/A0F0440AA2B111061A895BA35509DA5FA2D64846_large.jpg',
      image_width: 600,
      image_height: 600,
      thumbnail_url: 'https://tse3.mm.bing.net/th?id=OIP.hqTbKVogzsjy89vUN2QEXwHaHa&pid=15.1',
      link: 'https://www.alteredgamer.com/rpg-maker/52410-vx-for-beginners-part-5-customizing-your-title-screen-and-your-character/',
      domain: 'alteredgamer.com',
      source: 'alteredgamer.com',
    })
    expect(page.results[1]).toMatchObject({
      image_url: 'http://rpgmaker.net/media/content/users/2988/locker/rm_title13.png',
      image_width: 544,
      image_height: 416,
      domain: 'rpgmaker.net',
    })
  })

  it('every tile has a title, an absolute image and a page off bing.com', () => {
    for (const r of page.results) {
      expect(r.title).toBeTruthy()
      // Bing wraps highlighted words in U+E000 / U+E001 inside the m JSON.
      expect(r.title).not.toMatch(/[\ue000\ue001]/)
      expect(r.image_url).toMatch(/^https?:\/\//)
      expect(r.link).toMatch(/^https?:\/\//)
      expect(r.domain).not.toMatch(/bing\.com$/)
    }
  })

  it('a tile with unreadable data makes the page partial; no tiles is empty', () => {
    const html = `<ul><li><a class="iusc" m="{not json">x</a></li><li><a class="iusc" m='{"murl":"https://i.example.com/a.png","t":"A &amp; B","purl":"https://example.com/p"}' href="/images/search?exph=10&amp;expw=20"></a></li></ul>`
    const parsed = parseBingImages(html)
    expect(parsed.parse_quality).toBe('partial')
    expect(parsed.results).toEqual([
      {
        position: 1,
        title: 'A & B',
        image_url: 'https://i.example.com/a.png',
        image_width: 20,
        image_height: 10,
        link: 'https://example.com/p',
        domain: 'example.com',
        source: 'example.com',
      },
    ])
    expect(parseBingImages('<html><body>Nothing</body></html>')).toEqual({ results: [], parse_quality: 'empty' })
  })
})

describe('buildBingImagesRequest', () => {
  it('asks the async grid for num tiles from a 1-based first', () => {
    expect(buildBingImagesRequest(req()).url).toBe(
      'https://www.bing.com/images/async?q=RPG%20Title%20Screen&first=1&count=10&async=1&setlang=en-US&cc=US&mkt=en-US&adlt=off',
    )
    const p = new URL(buildBingImagesRequest(req({ page: 3, num: 20, country: 'de', language: 'de', time: 'week', safe: 'active' })).url).searchParams
    expect(Object.fromEntries(p)).toMatchObject({ first: '41', count: '20', mkt: 'de-DE', qft: '+filterui:age-lt10080', adlt: 'strict' })
    expect(new URL(buildBingImagesRequest(req({ time: 'hour' })).url).searchParams.get('qft')).toBe('+filterui:age-lt60')
  })
})

describe('bingImages.run', () => {
  it('fetches once with the Bing block detector and cuts to num', async () => {
    const seen: string[] = []
    const fetch: EngineFetch = async (url, _headers, detectBlock) => {
      seen.push(url)
      expect(detectBlock?.({ status: 429, url, body: '' })).not.toBeNull()
      expect(detectBlock?.({ status: 200, url, body: GRID })).toBeNull()
      return { status: 200, url, body: GRID }
    }
    const answer = await bingImages.run(req({ num: 10 }), fetch)
    expect(seen).toHaveLength(1)
    expect(answer.results).toHaveLength(10)
    expect(answer.parse_quality).toBe('ok')
  })
})
