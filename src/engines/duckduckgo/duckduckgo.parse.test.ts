import { describe, expect, it } from 'vitest'
import { listFixtures, readFixture } from '../../../test/support/fixtures.ts'
import { detectDuckDuckGoAutocompleteBlock, detectDuckDuckGoBlock, detectDuckDuckGoDjsBlock } from './duckduckgo.block.ts'
import { parseDuckDuckGoPage, parseDuckDuckGoSearch, targetOf } from './duckduckgo.parse.ts'

const DIR = 'serp/duckduckgo'
const read = (f: string) => readFixture(`${DIR}/${f}`).toString('utf8')
const HTML_URL = 'https://html.duckduckgo.com/html/'

// What each real capture holds, checked by reading the pages.
const EXPECTED: Record<string, { layout: string; quality: string; count: number; first?: { title: string; link: string } }> = {
  'blocked/ddgcli-anomaly-challenge-2026.html': { layout: 'unknown', quality: 'partial', count: 0 },
  'html/ddgcli-rust-programming-2026.body.html': {
    layout: 'html',
    quality: 'ok',
    count: 10,
    first: { title: 'Rust Programming Language', link: 'https://rust-lang.org/' },
  },
  'html/ddgcli-rust-programming-2026.http': {
    layout: 'html',
    quality: 'ok',
    count: 10,
    first: { title: 'Rust Programming Language', link: 'https://rust-lang.org/' },
  },
  'html/eino-eino-page2-empty.html': { layout: 'html', quality: 'empty', count: 0 },
  'html/eino-eino-results.html': {
    layout: 'html',
    quality: 'ok',
    count: 10,
    first: { title: 'GitHub - cloudwego/eino: The ultimate LLM/AI application development ...', link: 'https://github.com/cloudwego/eino' },
  },
  'html/eino-no-results-eof.html': { layout: 'html', quality: 'empty', count: 0 },
  'lite/ddgcli-rust-programming-2026.body.html': {
    layout: 'lite',
    quality: 'ok',
    count: 10,
    first: { title: 'Rust Programming Language', link: 'https://rust-lang.org/' },
  },
  'lite/ddgcli-rust-programming-2026.http': {
    layout: 'lite',
    quality: 'ok',
    count: 10,
    first: { title: 'Rust Programming Language', link: 'https://rust-lang.org/' },
  },
  'web-js-shell/aql-c-pretty-print-json.html': { layout: 'js-shell', quality: 'partial', count: 0 },
  'web-js-shell/aql-what-happened-to-greta-thornburg.html': { layout: 'js-shell', quality: 'partial', count: 0 },
  // Constructed (the current shell, with its d.js preload link): no results in it either.
  'web-js-shell/rust-programming-preload.constructed.html': { layout: 'js-shell', quality: 'partial', count: 0 },
}

// Pages of the no-JS layouts and the shell; d.js scripts are read by duckduckgo.djs.ts (duckduckgo.djs.test.ts).
const pageFixtures = listFixtures(DIR, true).filter((f) => !f.startsWith('autocomplete/') && !f.startsWith('djs/'))

describe('DuckDuckGo fixtures', () => {
  it('every saved page is listed here', () => {
    expect(pageFixtures.sort()).toEqual(Object.keys(EXPECTED).sort())
  })

  for (const file of pageFixtures) {
    it(`${file}: layout, quality, result count and first result`, () => {
      const want = EXPECTED[file]!
      const parsed = parseDuckDuckGoPage(read(file))
      expect(parsed.layout).toBe(want.layout)
      expect(parsed.page.parse_quality).toBe(want.quality)
      expect(parsed.page.results).toHaveLength(want.count)
      if (want.first) expect(parsed.page.results[0]).toMatchObject(want.first)
      for (const [i, r] of parsed.page.results.entries()) {
        expect(r.position).toBe(i + 1)
        expect(r.title).toBeTruthy()
        expect(r.link).toMatch(/^https?:\/\//)
        expect(r.domain).toBe(new URL(r.link).hostname.replace(/^www\./, ''))
        expect(new URL(r.link).hostname).not.toMatch(/duckduckgo\.com$/)
        expect(r.title).not.toMatch(/\s{2}|^\s|\s$/)
      }
    })
  }

  it('only the anomaly page is a block', () => {
    for (const file of pageFixtures) {
      const verdict = detectDuckDuckGoBlock({ status: 200, url: HTML_URL, body: read(file) })
      if (file.startsWith('blocked/')) expect(verdict).toEqual({ reason: 'DuckDuckGo challenge page (anomaly)' })
      else expect(verdict).toBeNull()
    }
  })
})

describe('html layout', () => {
  it('unwraps //duckduckgo.com/l/?uddg= links and reads displayed link and snippet', () => {
    const page = parseDuckDuckGoSearch(read('html/ddgcli-rust-programming-2026.body.html'))
    expect(page.results[1]).toEqual({
      position: 2,
      title: 'Rust (programming language) - Wikipedia',
      link: 'https://en.wikipedia.org/wiki/Rust_(programming_language)',
      domain: 'en.wikipedia.org',
      displayed_link: 'en.wikipedia.org/wiki/Rust_(programming_language)',
      snippet: expect.stringMatching(/^Rust is a general-purpose programming language\. It is noted for its emphasis on performance/),
    })
    expect(page.results[6]).toMatchObject({ link: 'http://rust-lang.github.io/book/', domain: 'rust-lang.github.io' })
    expect(page.results.map((r) => r.domain)).toContain('w3schools.com')
  })

  it('reads the date beside the displayed URL and decodes entities', () => {
    const page = parseDuckDuckGoSearch(read('html/eino-eino-results.html'))
    expect(page.results[0]?.date).toBeUndefined()
    expect(page.results[1]).toMatchObject({
      title: 'Eino: 概述 | CloudWeGo',
      link: 'https://www.cloudwego.io/zh/docs/eino/overview/',
      domain: 'cloudwego.io',
      displayed_link: 'www.cloudwego.io/zh/docs/eino/overview/',
      date: '2025-06-23',
    })
    expect(page.results[1]?.snippet).toContain(`Eino['aino] (近似音: i know，希望框架能达到 "i know" 的愿景)`)
    expect(page.results[9]).toMatchObject({ title: 'Eino - Wikipedia', link: 'https://en.wikipedia.org/wiki/Eino' })
  })

  it('hands back the Next form as the site sends it', () => {
    expect(parseDuckDuckGoPage(read('html/eino-eino-results.html')).next).toEqual({
      q: 'eino',
      s: '10',
      nextParams: '',
      v: 'l',
      o: 'json',
      dc: '11',
      api: 'd.js',
      vqd: '4-167208798460794982980732831674372650598',
      kl: 'wt-wt',
    })
    expect(parseDuckDuckGoPage(read('html/eino-eino-page2-empty.html')).next).toBeUndefined()
  })

  it('the "EOF" end marker (a Google search link) is not a result', () => {
    const body = read('html/eino-no-results-eof.html')
    expect(body).toContain('>EOF</a>')
    expect(parseDuckDuckGoSearch(body)).toEqual({ results: [], parse_quality: 'empty', saysNoResults: true })
  })

  it('skips ads, prefers Next over Previous, and reads the instant answer', () => {
    const body = `<html><body class="body--html">
      <div class="zci"><h1 class="zci__heading"><a href="https://en.wikipedia.org/wiki/Rust_(programming_language)">Rust (programming language)</a></h1>
        <div class="zci__result" id="zero_click_abstract"><a class="zci__image" href="https://en.wikipedia.org/wiki/Rust_(programming_language)"><img src="//external-content.duckduckgo.com/iu/?u=x.png"></a>
        Rust is a general-purpose  programming language. <a rel="nofollow" href="https://en.wikipedia.org/wiki/Rust_(programming_language)">More at Wikipedia</a></div></div>
      <div id="links" class="results">
        <div class="result results_links result--ad"><h2 class="result__title"><a class="result__a" href="https://duckduckgo.com/y.js?ad_domain=ads.example&amp;u3=x">Buy Rust</a><button class="badge--ad">Ad</button></h2></div>
        <div class="result results_links web-result"><h2 class="result__title"><a class="result__a" href="//duckduckgo.com/l/?uddg=https%3A%2F%2Fwww.example.org%2Fa%3Fb%3D1%26c%3D2&amp;rut=ff">Example &amp; Co</a></h2>
          <a class="result__snippet" href="x">An <b>example</b>.</a></div>
        <div class="result results_links web-result"><h2 class="result__title"></h2></div>
        <div class="nav-link"><form action="/html/" method="post"><input type="submit" value="Previous"><input type="hidden" name="s" value="0"><input type="hidden" name="vqd" value="4-1"></form></div>
        <div class="nav-link"><form action="/html/" method="post"><input type="submit" value="Next"><input type="hidden" name="s" value="25"><input type="hidden" name="dc" value="26"><input type="hidden" name="vqd" value="4-1"></form></div>
      </div></body></html>`
    const parsed = parseDuckDuckGoPage(body)
    expect(parsed.page.results).toEqual([
      { position: 1, title: 'Example & Co', link: 'https://www.example.org/a?b=1&c=2', domain: 'example.org', snippet: 'An example.' },
    ])
    // The block without a title link is result markup that could not be read.
    expect(parsed.page.parse_quality).toBe('partial')
    expect(parsed.next).toEqual({ s: '25', dc: '26', vqd: '4-1' })
    expect(parsed.page.knowledge_graph).toEqual({
      title: 'Rust (programming language)',
      description: 'Rust is a general-purpose programming language.',
      source: { name: 'Wikipedia', link: 'https://en.wikipedia.org/wiki/Rust_(programming_language)' },
      image_url: 'https://external-content.duckduckgo.com/iu/?u=x.png',
    })
  })
})

describe('lite layout', () => {
  it('reads link, snippet and displayed link rows', () => {
    const page = parseDuckDuckGoSearch(read('lite/ddgcli-rust-programming-2026.body.html'))
    expect(page.results[6]).toEqual({
      position: 7,
      title: 'Is Rust Still Surging in 2026? Usage and Ecosystem Insights',
      link: 'https://www.zenrows.com/blog/rust-popularity',
      domain: 'zenrows.com',
      displayed_link: 'www.zenrows.com/blog/rust-popularity',
      snippet:
        "How is Rust being used in 2025? Let's see the latest statistics on developer adoption, tooling, and its hold in modern systems development and beyond.",
    })
    expect(page.results[9]?.snippet).toContain('The big project of Rust is "servo"')
  })

  it('has the same Next form as the html page of the same capture', () => {
    const lite = parseDuckDuckGoPage(read('lite/ddgcli-rust-programming-2026.body.html')).next
    expect(lite).toEqual(parseDuckDuckGoPage(read('html/ddgcli-rust-programming-2026.body.html')).next)
    expect(lite?.vqd).toBe('4-228146944907429031912155131235649544909')
  })

  it('skips sponsored rows and the EOF marker', () => {
    const body = `<html><body><form action="/lite/" method="post"></form><table>
      <tr class="result-sponsored"><td>1.</td><td><a class="result-link" href="https://duckduckgo.com/y.js?ad=1">Ad</a></td></tr>
      <tr class="result-sponsored"><td></td><td class="result-snippet">Sponsored text</td></tr>
      <tr><td>1.</td><td><a class="result-link" href="https://example.com/x">Example</a></td></tr>
      <tr><td></td><td class="result-snippet">Real  snippet</td></tr>
      <tr><td></td><td><span class="link-text">example.com/x</span><span class="timestamp">2026-01-02T00:00:00</span></td></tr>
      <tr><td>2.</td><td><a class="result-link" href="http://www.google.com/search?hl=en&amp;q=example">EOF</a></td></tr>
    </table></body></html>`
    expect(parseDuckDuckGoSearch(body)).toEqual({
      results: [
        {
          position: 1,
          title: 'Example',
          link: 'https://example.com/x',
          domain: 'example.com',
          snippet: 'Real snippet',
          displayed_link: 'example.com/x',
          date: '2026-01-02',
        },
      ],
      parse_quality: 'ok',
    })
  })
})

describe('targetOf', () => {
  it('decodes the redirect wrapper, keeps plain links and refuses DuckDuckGo pages', () => {
    expect(targetOf('//duckduckgo.com/l/?uddg=https%3A%2F%2Frust%2Dlang.org%2F&rut=d4')).toBe('https://rust-lang.org/')
    expect(targetOf('https://github.com/cloudwego/eino')).toBe('https://github.com/cloudwego/eino')
    expect(targetOf('/html/?q=x')).toBeUndefined()
    expect(targetOf('javascript:void(0)')).toBeUndefined()
    expect(targetOf(undefined)).toBeUndefined()
  })
})

describe('detectDuckDuckGoBlock', () => {
  const anomaly = read('blocked/ddgcli-anomaly-challenge-2026.html')

  it('flags the anomaly page whatever the status, rate limits, 403s and Cloudflare challenges', () => {
    expect(detectDuckDuckGoBlock({ status: 200, url: HTML_URL, body: anomaly })?.reason).toBe('DuckDuckGo challenge page (anomaly)')
    expect(detectDuckDuckGoBlock({ status: 202, url: HTML_URL, body: anomaly })?.reason).toBe('DuckDuckGo answered 202: anomaly page (bot check)')
    expect(detectDuckDuckGoBlock({ status: 429, url: HTML_URL, body: '' })?.reason).toBe('HTTP 429 from DuckDuckGo')
    expect(detectDuckDuckGoBlock({ status: 403, url: HTML_URL, body: '' })?.reason).toBe('HTTP 403 from DuckDuckGo')
    expect(detectDuckDuckGoBlock({ status: 302, url: 'https://duckduckgo.com/anomaly.js?sv=html', body: '' })).not.toBeNull()
    const cf =
      '<html><head><title>Just a moment...</title></head><body><script src="/cdn-cgi/challenge-platform/h/b/orchestrate/jsch/v1"></script></body></html>'
    expect(detectDuckDuckGoBlock({ status: 503, url: HTML_URL, body: cf })?.reason).toBe('Cloudflare challenge')
  })

  it('every 202 is a block, with or without the anomaly page; a 200 "No results" page is an answer', () => {
    // searxng#6596, duckduckgo-mcp-server#46: a 202 with an empty page is how DuckDuckGo refuses now.
    expect(detectDuckDuckGoBlock({ status: 202, url: HTML_URL, body: '' })?.reason).toBe('DuckDuckGo answered 202 without results (a silent block)')
    const bare = '<html><head><title>DuckDuckGo</title></head><body><div id="links"></div></body></html>'
    expect(detectDuckDuckGoBlock({ status: 202, url: HTML_URL, body: bare })?.reason).toBe('DuckDuckGo answered 202 without results (a silent block)')
    const modal = '<html><body><div class="anomaly-modal__mask"><div class="anomaly-modal__modal" data-testid="anomaly-modal"></div></div></body></html>'
    expect(detectDuckDuckGoBlock({ status: 202, url: HTML_URL, body: modal })?.reason).toBe('DuckDuckGo answered 202: anomaly page (bot check)')
    // The same rule for the shell, d.js and autocomplete (their detectors start from this one).
    expect(detectDuckDuckGoDjsBlock({ status: 202, url: 'https://links.duckduckgo.com/d.js?q=a', body: '' })?.reason).toBe(
      'DuckDuckGo answered 202 without results (a silent block)',
    )
    expect(detectDuckDuckGoAutocompleteBlock({ status: 202, url: 'https://duckduckgo.com/ac/?q=a', body: '[]' })).not.toBeNull()
    // DuckDuckGo's own "No results" answers are 200s: never blocks.
    for (const f of ['html/eino-no-results-eof.html', 'html/eino-eino-page2-empty.html']) {
      expect(detectDuckDuckGoBlock({ status: 200, url: HTML_URL, body: read(f) })).toBeNull()
      expect(parseDuckDuckGoSearch(read(f))).toMatchObject({ results: [], parse_quality: 'empty', saysNoResults: true })
    }
  })

  it('does not flag a result page whose text talks about bots and challenges', () => {
    const body = read('html/eino-eino-results.html').replace(
      'Eino is a Finnish and Estonian masculine given name',
      'Unfortunately, bots use DuckDuckGo too. id="challenge-form" anomaly-modal__title anomaly.js?sv=html',
    )
    expect(detectDuckDuckGoBlock({ status: 200, url: HTML_URL, body })).toBeNull()
  })
})
