import { describe, expect, it } from 'vitest'
import { fixture } from '../../../../test/support/fake-upstream.ts'
import type { VerticalRequest } from '../../engine.types.ts'
import type { EngineFetch } from '../../provider.types.ts'
import { detectGoogleBlock } from '../google-block.detect.ts'
import { parseGoogleVideos } from './google-videos.parse.ts'
import { googleVideos } from './google-videos.ts'

const read = (path: string) => fixture(`serp/google/${path}`).toString('utf8')
const ATALANTA = 'videos/aql-atalanta-bergamasca-calcio-basic.html'
const req = (r: Partial<VerticalRequest> = {}): VerticalRequest => ({ endpoint: 'videos', q: 'atalanta', num: 10, page: 1, ...r })

describe('parseGoogleVideos: basic layout (aql-atalanta-bergamasca-calcio)', () => {
  const page = parseGoogleVideos(read(ATALANTA))

  it('reads the 10 results in page order', () => {
    expect(page.parse_quality).toBe('ok')
    expect(page.results.map((r) => r.domain)).toEqual([
      'youtube.com',
      'joma-sport.com',
      'youtube.com',
      'playmakerstats.com',
      'youtube.com',
      'youtube.com',
      'twitter.com',
      'youtube.com',
      'mobile.twitter.com',
      'playmakerstats.com',
    ])
  })

  it('splits "date · snippet" and reads the Duration and Posted lines', () => {
    expect(page.results[2]).toEqual({
      position: 3,
      title: '#UCL MD5 | Young Boys-Atalanta 3-3 | Highlights - YouTube',
      link: 'https://www.youtube.com/watch?v=8ep-haI7NEk',
      domain: 'youtube.com',
      snippet: "Atalanta Bergamasca Calcio. 70.9K subscribers. Subscribe. L'Atalanta esce con un ...",
      image_url: 'https://i.ytimg.com/vi/8ep-haI7NEk/default.jpg?sqp=-oaymwEECHgQQw&rs=AMzJL3nWZylMmEjVYgg7yfnEK2OcfGfHAw',
      duration: '2:09',
      source: 'YouTube',
      channel: 'Atalanta Bergamasca Calcio',
      date: 'Nov 27, 2021',
    })
    expect(page.results[4]).toMatchObject({ duration: '2:50', date: '15 hours ago', link: 'https://www.youtube.com/watch?v=2lWuSwX_aTo&vl=en' })
  })

  it('non-YouTube results: the site named in the title is the source; no channel', () => {
    expect(page.results[1]).toEqual({
      position: 2,
      title: 'Atalanta Bergamasca Calcio | JOMA ®',
      link: 'https://www.joma-sport.com/en/sponsor/atalanta-bergamasca-calcio',
      domain: 'joma-sport.com',
      snippet: 'The Atalanta Bergamasca Calcio, better known as Atalanta is the new Italian soccer team that ...',
      image_url: 'https://encrypted-tbn0.gstatic.com/images?q=tbn:ANd9GcRyYkMdBYQC2kZFcebiiglCghgCZI3g_LRveKx5qgzlWDtApgpPdgioJUfg',
      duration: '0:21',
      date: 'Jul 10, 2017',
    })
    expect(page.results[3]).toMatchObject({ source: 'playmakerstats.com', duration: '2:31', date: 'Aug 3, 2021' })
    expect(page.results[3]?.channel).toBeUndefined()
    // A result without a Duration line keeps its date.
    expect(page.results[8]).toMatchObject({ source: 'Twitter', date: '6 days ago' })
    expect(page.results[8]?.duration).toBeUndefined()
  })

  it('a channel page has a snippet but no thumbnail, duration or date', () => {
    expect(page.results[0]).toEqual({
      position: 1,
      title: 'Atalanta Bergamasca Calcio - YouTube',
      link: 'https://www.youtube.com/channel/UC0R-isVeRhMDe3vFTWP5Spg',
      domain: 'youtube.com',
      snippet: "WELCOME TO THE OFFICIAL YOUTUBE CHANNEL ATALANTA BERGAMASCA CALCIO. Since 1907 Bergamo's Team.#ForzaAtalanta#ABC1907.",
      source: 'YouTube',
    })
  })

  it('numbers from the page offset, cuts to num and enforces domain filters', () => {
    const p2 = parseGoogleVideos(read(ATALANTA), req({ page: 2 }))
    expect(p2.results.map((r) => r.position)).toEqual([11, 12, 13, 14, 15, 16, 17, 18, 19, 20])
    const yt = parseGoogleVideos(read(ATALANTA), req({ include_domains: ['youtube.com'] }))
    expect(yt.results.map((r) => r.position)).toEqual([1, 2, 3, 4, 5])
    expect(yt.results.every((r) => r.domain === 'youtube.com')).toBe(true)
    const noTwitter = parseGoogleVideos(read(ATALANTA), req({ exclude_domains: ['twitter.com'] }))
    expect(noTwitter.results).toHaveLength(8)
  })
})

describe('parseGoogleVideos: other layouts', () => {
  it('reads "YouTube · Channel" and a bare duration from a JS-style card', () => {
    // Constructed: the desktop card's lines (platform · channel, duration over the thumbnail).
    const html = `<html><body><div id="main"><div><a href="/url?q=https://www.youtube.com/watch%3Fv%3Dabc&amp;sa=U"><h3>Match highlights</h3></a>
      <div><img src="https://i.ytimg.com/vi/abc/default.jpg"/><div>12:34</div></div><div>YouTube · Serie A</div><div>Mar 3, 2024 — All the goals from the weekend.</div></div></div></body></html>`
    expect(parseGoogleVideos(html).results).toEqual([
      {
        position: 1,
        title: 'Match highlights',
        link: 'https://www.youtube.com/watch?v=abc',
        domain: 'youtube.com',
        snippet: 'All the goals from the weekend.',
        image_url: 'https://i.ytimg.com/vi/abc/default.jpg',
        duration: '12:34',
        source: 'YouTube',
        channel: 'Serie A',
        date: 'Mar 3, 2024',
      },
    ])
  })

  it('a page without results is empty', () => {
    expect(parseGoogleVideos('<html><body><div id="main"><p>No results</p></div></body></html>')).toEqual({ results: [], parse_quality: 'empty' })
  })
})

describe('block pages', () => {
  it('the CAPTCHA page is refused by the detector and never parsed as results', () => {
    const body = read('web-desktop/zlurad-recaptcha.html')
    expect(detectGoogleBlock({ status: 200, url: 'https://www.google.com/search?q=x&tbm=vid', body })).toEqual({
      code: 'upstream_blocked',
      reason: 'CAPTCHA page',
    })
    expect(parseGoogleVideos(body)).toEqual({ results: [], parse_quality: 'empty' })
  })

  it('the real video page passes the detector', () => {
    expect(detectGoogleBlock({ status: 200, url: 'https://www.google.com/search?tbm=vid', body: read(ATALANTA) })).toBeNull()
  })
})

describe('googleVideos.run', () => {
  it('fetches the built URL with the Google block detector and returns the parsed page', async () => {
    const seen: string[] = []
    const fetch: EngineFetch = async (url, _headers, detectBlock) => {
      seen.push(url)
      const body = read(ATALANTA)
      expect(detectBlock?.({ status: 200, url, body: read('web-desktop/zlurad-recaptcha.html') })?.reason).toBe('CAPTCHA page')
      return { status: 200, url, body }
    }
    const answer = await googleVideos.run(req({ num: 20 }), fetch)
    expect(new URL(seen[0] ?? '').searchParams.get('tbm')).toBe('vid')
    expect(answer.results).toHaveLength(10)
    expect(answer.parse_quality).toBe('ok')
  })
})
