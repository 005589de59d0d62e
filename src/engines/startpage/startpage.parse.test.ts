import { describe, expect, it } from 'vitest'
import { listFixtures, readFixture } from '../../../test/support/fixtures.ts'
import { detectStartpageBlock } from './startpage.block.ts'
import { parseStartpage, parseStartpageHtml } from './startpage.parse.ts'

const read = (name: string) => readFixture(`serp/startpage/web/${name}`).toString('utf8')
const CAPTURES = listFixtures('serp/startpage', true).map((f) => f.replace(/^web\//, ''))

// The links of each capture in page order (read by hand from the page).
const LINKS: Record<string, string[]> = {
  'wsmcp-javascript-tutorial-browser-2026.html': [
    'https://www.w3schools.com/js/',
    'https://javascript.info/',
    'https://www.javascripttutorial.net/',
    'https://www.youtube.com/watch?v=Ihy0QziLDf0',
    'https://www.youtube.com/playlist?list=PL0eyrZgxdwhxNGMWROnaY35NLyEjTqcgB',
    'https://developer.mozilla.org/en-US/docs/Web/JavaScript/Guide',
    'https://www.youtube.com/watch?v=EerdGm-ehJQ',
    'https://www.tutorialspoint.com/javascript/index.htm',
    'https://www.w3schools.com/js/js_intro.asp',
    'https://www.youtube.com/watch?v=lfmg-EJ8gm4',
  ],
  'wsmcp-javascript-tutorial-http-2026.html': [
    'https://www.w3schools.com/js/',
    'https://javascript.info/',
    'https://www.javascripttutorial.net/',
    'https://www.youtube.com/watch?v=Ihy0QziLDf0',
    'https://www.tutorialspoint.com/javascript/index.htm',
    'https://www.petanikode.com/tutorial/javascript/',
    'https://www.youtube.com/playlist?list=PL0eyrZgxdwhxNGMWROnaY35NLyEjTqcgB',
    'https://id.javascript.info/',
    'https://www.youtube.com/watch?v=EerdGm-ehJQ',
    'https://www.geeksforgeeks.org/javascript/javascript-tutorial/',
  ],
}

describe('parseStartpage: every capture', () => {
  it('has an expectation for each capture', () => {
    expect(CAPTURES.sort()).toEqual(Object.keys(LINKS).sort())
  })

  for (const name of CAPTURES) {
    it(`${name}: reads the 10 web results from the app data, ads left out`, () => {
      const p = parseStartpage(read(name))
      expect(p.parse_quality).toBe('ok')
      expect(p.results.map((r) => r.link)).toEqual(LINKS[name])
      expect(p.results[0]).toEqual({
        position: 1,
        title: 'JavaScript Tutorial - W3Schools',
        link: 'https://www.w3schools.com/js/',
        domain: 'w3schools.com',
        displayed_link: 'https://www.w3schools.com/js/',
        snippet:
          'Well organized and easy to understand Web building tutorials with lots of examples of how to use HTML, CSS, JavaScript, SQL, Python, PHP, Bootstrap, Java, ...',
      })
      for (const r of p.results) {
        expect(r.title).not.toMatch(/<b>|&amp;|\s{2}/)
        expect(r.snippet ?? '').not.toMatch(/<b>|&nbsp;|\s{2}/)
        expect(new URL(r.link).hostname).not.toMatch(/startpage\.com$/)
        expect(r.domain).toBe(new URL(r.link).hostname.replace(/^www\./, ''))
      }
    })

    it(`${name}: the markup gives the same results when the app data is missing`, () => {
      const html = read(name)
      const fromHtml = parseStartpageHtml(html)
      const fromData = parseStartpage(html)
      expect(fromHtml.parse_quality).toBe('ok')
      expect(fromHtml.results).toEqual(fromData.results)
      expect(parseStartpage(html.replaceAll('React.createElement(UIStartpage', 'React.createElement(Other'))).toEqual(fromHtml)
    })

    it(`${name}: is not a block page`, () => {
      expect(detectStartpageBlock({ status: 200, url: 'https://www.startpage.com/sp/search', body: read(name) })).toBeNull()
    })
  }

  it('splits the leading date off a description', () => {
    const p = parseStartpage(read('wsmcp-javascript-tutorial-http-2026.html'))
    expect(p.results[3]).toMatchObject({
      title: 'JavaScript tutorial for beginners - YouTube',
      date: '14 Oct 2023',
      snippet: 'JavaScript #tutorial #course 00:00:00 introduction 00:01:12 VS Code 00:01:30 website folder 00:02:55 HTML setup 00:04:09 Live Server ...',
    })
    expect(p.results[9]).toMatchObject({ domain: 'geeksforgeeks.org', date: '13 Mar 2026' })
  })
})

describe('parse_quality', () => {
  const props = (mainline: string) =>
    `<script>ReactDOM.hydrateRoot(root, React.createElement(UIStartpage.AppSerpWeb, { render: { presenter: { regions: { mainline: [${mainline}] } } } }))</script>`

  it('is empty for a "no results" notice, partial for unreadable results or an unknown page', () => {
    expect(parseStartpage(props("{ display_type: 'notice-noresults-empty', results: [] }"))).toEqual({
      results: [],
      parse_quality: 'empty',
      saysNoResults: true,
    })
    expect(parseStartpage(props("{ display_type: 'web-google', results: [{ title: 'no link' }] }")).parse_quality).toBe('partial')
    expect(parseStartpage('<html><body><p>Something else</p></body></html>').parse_quality).toBe('partial')
    expect(parseStartpage('<html><body><p>Your search did not match any documents.</p></body></html>').parse_quality).toBe('empty')
  })
})

describe('detectStartpageBlock', () => {
  const url = 'https://www.startpage.com/sp/search'

  it('recognises the /sp/captcha redirect, 429, the Anubis proof-of-work page and Cloudflare', () => {
    expect(detectStartpageBlock({ status: 302, url: 'https://www.startpage.com/sp/captcha?back=1', body: '' })).not.toBeNull()
    expect(detectStartpageBlock({ status: 429, url, body: '' })).not.toBeNull()
    const anubis = '<html><head><title>Making sure you&#39;re not a bot!</title><script id="anubis_challenge" type="application/json">{}</script></head></html>'
    expect(detectStartpageBlock({ status: 200, url, body: anubis })).toEqual({ reason: 'Startpage served a proof-of-work (Anubis) challenge' })
    expect(detectStartpageBlock({ status: 200, url, body: '<form method="post" action="/sp/captcha"><button>Go</button></form>' })).not.toBeNull()
    expect(detectStartpageBlock({ status: 403, url, body: '<title>Just a moment...</title><div id="cf-chl-widget"></div>' })).not.toBeNull()
  })

  it('does not read pages with results, or the home page, as blocks', () => {
    const results = '<div class="w-gl css-1"><div class="result"><a class="result-link" href="https://captcha.example/">Solve a captcha</a></div></div>'
    expect(detectStartpageBlock({ status: 200, url, body: results })).toBeNull()
    const home =
      '<html><title>Startpage - Private Search Engine</title><form id="search" action="/sp/search" method="post"><input type="hidden" name="sc" value="abc"/></form></html>'
    expect(detectStartpageBlock({ status: 200, url: 'https://www.startpage.com/', body: home })).toBeNull()
  })
})
