import { describe, expect, it } from 'vitest'
import { fixture } from '../../../../test/support/fake-upstream.ts'
import type { VerticalRequest } from '../../engine.types.ts'
import type { EngineFetch } from '../../provider.types.ts'
import { detectGoogleBlock } from '../google-block.detect.ts'
import { parseGoogleImages, parseImageGrid } from './google-images.parse.ts'
import { googleImages } from './google-images.ts'

const read = (path: string) => fixture(`serp/google/${path}`).toString('utf8')
const GREEN = 'images/aql-green-capital-energy-basic.html'
const req = (r: Partial<VerticalRequest> = {}): VerticalRequest => ({ endpoint: 'images', q: 'green capital energy', num: 10, page: 1, ...r })

describe('parseGoogleImages: basic grid (aql-green-capital-energy)', () => {
  it('reads all 20 cards: thumbnail, title, host and the page the image is on', () => {
    const page = parseGoogleImages(read(GREEN))
    expect(page.parse_quality).toBe('ok')
    expect(page.results).toHaveLength(20)
    const thumb = 'https://encrypted-tbn0.gstatic.com/images?q=tbn:ANd9GcShPewuSRsLOk0pzClEC6FQwLGhNFZezH9yGtcpPPhP6atkbM-pO49GLElqGw&s'
    expect(page.results[0]).toEqual({
      position: 1,
      title: 'Saving Shaw money > Shaw...',
      // The basic grid holds no full-size URL: the thumbnail is the only image URL there is.
      image_url: thumb,
      thumbnail_url: thumb,
      source: 'www.shaw.af.mil',
      domain: 'shaw.af.mil',
      link: 'https://www.shaw.af.mil/News/Article-Display/Article/664405/saving-shaw-money/',
    })
    expect(page.results[6]).toMatchObject({
      position: 7,
      title: '2015.10.22 Professional...',
      domain: 'flickr.com',
      link: 'https://www.flickr.com/photos/taedc/22461674052',
    })
    expect(page.results[19]).toMatchObject({
      position: 20,
      title: 'AMC saves energy in the...',
      source: 'www.dover.af.mil',
      link: 'https://www.dover.af.mil/News/Article/229518/amc-saves-energy-in-the-office-on-the-road/',
    })
  })

  it('keeps distinct images from the same page (three Dover thumbnails link one article)', () => {
    const results = parseGoogleImages(read(GREEN)).results.slice(1, 4)
    expect(new Set(results.map((r) => r.link)).size).toBe(1)
    expect(new Set(results.map((r) => r.thumbnail_url)).size).toBe(3)
  })

  it('finds the Next page offset', () => {
    expect(parseImageGrid(read(GREEN)).nextStart).toBe(20)
  })

  it('cuts to num, numbers from the page offset and enforces domain filters', () => {
    const page1 = parseGoogleImages(read(GREEN), req())
    expect(page1.results).toHaveLength(10)
    expect(page1.results.at(-1)?.position).toBe(10)
    const page2 = parseGoogleImages(read(GREEN), req({ page: 2 }))
    expect(page2.results[0]).toMatchObject({ position: 11, title: 'Saving Shaw money > Shaw...' })
    const dover = parseGoogleImages(read(GREEN), req({ include_domains: ['dover.af.mil'] }))
    expect(dover.results.map((r) => r.domain)).toEqual(Array(6).fill('dover.af.mil'))
    expect(dover.results.map((r) => r.position)).toEqual([1, 2, 3, 4, 5, 6])
    const noMil = parseGoogleImages(read(GREEN), req({ num: 20, exclude_domains: ['.mil'] }))
    expect(noMil.results.map((r) => r.domain)).toEqual(['flickr.com', 'flickr.com', 'flickr.com', 'pxhere.com', 'flickr.com', 'planbe.eco'])
    expect(noMil.results.map((r) => r.position)).toEqual([1, 2, 3, 4, 5, 6])
  })
})

describe('parseGoogleImages: other pages', () => {
  it('German page without results is empty, not an error', () => {
    const page = parseGoogleImages(read('images/aql-kush-raval-no-results-de.html'))
    expect(page).toEqual({ results: [], parse_quality: 'empty' })
    expect(parseImageGrid(read('images/aql-kush-raval-no-results-de.html')).nextStart).toBeUndefined()
  })

  it('reads full-size URL and size from /imgres links (the WML grid links through them)', () => {
    // Constructed: the shape of the feature-phone grid's cards as SearXNG parses them.
    const html = `<html><body><div><a href="/imgres?imgurl=https://cdn.example.org/full/wind.jpg&amp;imgrefurl=https://example.org/wind-farms&amp;h=1080&amp;w=1920">
      <img src="https://encrypted-tbn1.gstatic.com/images?q=tbn:abc"/><div>Offshore wind farms</div><div>example.org</div></a></div></body></html>`
    expect(parseGoogleImages(html).results).toEqual([
      {
        position: 1,
        title: 'Offshore wind farms',
        image_url: 'https://cdn.example.org/full/wind.jpg',
        image_width: 1920,
        image_height: 1080,
        thumbnail_url: 'https://encrypted-tbn1.gstatic.com/images?q=tbn:abc',
        source: 'example.org',
        domain: 'example.org',
        link: 'https://example.org/wind-farms',
      },
    ])
  })

  it('a card with an image and a link but no caption makes the page partial', () => {
    const html = '<html><body><a href="/url?q=https://example.org/a&amp;sa=U"><img src="https://encrypted-tbn0.gstatic.com/images?q=tbn:x"/></a></body></html>'
    expect(parseGoogleImages(html)).toEqual({ results: [], parse_quality: 'partial' })
  })
})

describe('block pages', () => {
  it('the CAPTCHA page is refused by the detector and never parsed as results', () => {
    const body = read('web-desktop/zlurad-recaptcha.html')
    const url = 'https://www.google.com/search?q=x&tbm=isch&gbv=1'
    expect(detectGoogleBlock({ status: 200, url, body })).toEqual({ code: 'upstream_blocked', reason: 'CAPTCHA page' })
    expect(parseGoogleImages(body)).toEqual({ results: [], parse_quality: 'empty' })
  })

  it('the real image pages pass the detector', () => {
    for (const path of [GREEN, 'images/aql-kush-raval-no-results-de.html']) {
      expect(detectGoogleBlock({ status: 200, url: 'https://www.google.com/search?tbm=isch', body: read(path) })).toBeNull()
    }
  })
})

describe('googleImages.run', () => {
  function fakeFetch(bodies: string[]) {
    const urls: string[] = []
    const fetch: EngineFetch = async (url, _headers, detectBlock) => {
      urls.push(url)
      const body = bodies[urls.length - 1] ?? ''
      const block = detectBlock?.({ status: 200, url, body })
      if (block) throw new Error(`blocked: ${block.reason}`)
      return { status: 200, url, body }
    }
    return { fetch, urls }
  }

  it('fetches one grid page when it holds num images', async () => {
    const { fetch, urls } = fakeFetch([read(GREEN)])
    const answer = await googleImages.run(req({ num: 20 }), fetch)
    expect(urls).toHaveLength(1)
    expect(answer.results).toHaveLength(20)
    expect(answer.parse_quality).toBe('ok')
  })

  it('follows the Next offset until num is reached, skipping repeated cards', async () => {
    const { fetch, urls } = fakeFetch([read(GREEN), read(GREEN), read('images/aql-kush-raval-no-results-de.html')])
    const answer = await googleImages.run(req({ num: 50 }), fetch)
    // The second page repeats the first (same capture), so nothing new comes and fetching stops.
    expect(urls.map((u) => new URL(u).searchParams.get('start'))).toEqual([null, '20'])
    expect(answer.results).toHaveLength(20)
    expect(answer.results.at(-1)?.position).toBe(20)
  })

  it('passes the Google block detector to fetch', async () => {
    const { fetch } = fakeFetch([read('web-desktop/zlurad-recaptcha.html')])
    await expect(googleImages.run(req(), fetch)).rejects.toThrow('blocked: CAPTCHA page')
  })
})
