import { describe, expect, test } from 'vitest'
import { listFixtures, readFixture } from '../../test/support/fixtures.ts'
import { decideRender, judgeSignals, shellSignals } from './render.decide.ts'

const page = (html: string, emptyRead = false) => ({ html, isHtml: true, emptyRead })
const fixture = (rel: string) => readFixture(rel).toString('utf8')

describe('render=auto on real single-page-app shells (fixtures/spa-shells)', () => {
  test.each([
    ['cra.html', 'empty application root #root'],
    ['vite-react-ts.html', 'empty application root #root'],
    ['vue-cli.html', 'empty application root #app'],
    ['angular-cli.html', 'empty application root <app-root>'],
  ])('%s is rendered (%s)', (name, reason) => {
    const html = fixture(`spa-shells/${name}`)
    expect(decideRender('auto', page(html))).toEqual({ render: true, reason })
  })

  test('the noscript notices of the starters are recognised', () => {
    for (const name of ['cra.html', 'vite-react-ts.html', 'vue-cli.html']) expect(shellSignals(fixture(`spa-shells/${name}`)).noscriptNotice, name).toBe(true)
  })
})

/** Every real page of the reader corpora: server-drawn articles, many with React/Vue roots, noscript notices or heavy scripts. */
const CORPORA = ['corpora/article-extraction-benchmark/html', 'corpora/trafilatura-eval/html', 'corpora/readability-test-pages/test-pages']

describe('render=auto leaves real articles alone', () => {
  test('none of the 651 corpus pages is rendered when its static read found content', () => {
    let pages = 0
    const rendered: string[] = []
    for (const dir of CORPORA) {
      for (const f of listFixtures(dir, true)) {
        if (!f.endsWith('.html') || f.endsWith('expected.html')) continue
        pages++
        const d = decideRender('auto', page(fixture(`${dir}/${f}`)))
        if (d.render) rendered.push(`${f}: ${d.reason}`)
      }
    }
    expect(pages).toBe(651)
    expect(rendered).toEqual([])
  })

  test.each([
    // Server-rendered React/Vue apps: the root is there, full of the article.
    ['corpora/readability-test-pages/test-pages/nytimes-3/source.html', 'characters of text'],
    ['corpora/readability-test-pages/test-pages/medium-3/source.html', 'characters of text'],
    ['corpora/readability-test-pages/test-pages/gitlab-blog/source.html', 'characters of text'],
    // "Please enable JavaScript" notices beside a full article (comment widgets, players).
    ['corpora/trafilatura-eval/html/toptal.com.python.html', 'characters of text'],
    ['corpora/trafilatura-eval/html/royalroad.com.melas.html', 'characters of text'],
    // Short pages without any script: a browser would draw nothing more.
    ['corpora/readability-test-pages/test-pages/005-unescape-html-entities/source.html', 'no scripts'],
  ])('%s is not rendered (%s)', (rel, reason) => {
    const d = decideRender('auto', page(fixture(rel)))
    expect(d.render).toBe(false)
    expect(d.reason).toContain(reason)
  })

  test('the noscript notice is seen on those pages, and the text outweighs it', () => {
    const s = shellSignals(fixture('corpora/trafilatura-eval/html/toptal.com.python.html'))
    expect(s.noscriptNotice).toBe(true)
    expect(s.textChars).toBeGreaterThan(2000)
  })
})

describe('the rules', () => {
  const shell = (body: string, head = '') => `<!doctype html><html><head><title>App</title>${head}</head><body>${body}</body></html>`

  test('always and never decide alone; non-HTML is never drawn under auto', () => {
    expect(decideRender('always', page(shell('<p>x</p>'))).render).toBe(true)
    expect(decideRender('never', page(fixture('spa-shells/cra.html'))).render).toBe(false)
    expect(decideRender('auto', { html: undefined, isHtml: false, emptyRead: true })).toEqual({ render: false, reason: 'not an HTML page' })
  })

  test('an app root holding a "Loading..." placeholder is still empty; one holding the page is not', () => {
    expect(decideRender('auto', page(shell('<div id="root"><div class="spinner">Loading...</div></div><script src="/main.js"></script>'))).render).toBe(true)
    const drawn = shell(
      `<div id="root"><article>${'<p>Server-drawn prose about tides and channels. </p>'.repeat(60)}</article></div><script src="/main.js"></script>`,
    )
    expect(decideRender('auto', page(drawn))).toMatchObject({ render: false })
  })

  test('a JavaScript notice on a page with little text is a shell; the same notice beside an article is not', () => {
    const notice = '<noscript>This site requires JavaScript to work.</noscript><div class="page"></div><script src="/bundle.js"></script>'
    expect(decideRender('auto', page(shell(notice)))).toEqual({ render: true, reason: 'noscript JavaScript notice' })
    expect(
      decideRender('auto', page(shell(`${notice}<article>${'<p>A long article paragraph with real words in it. </p>'.repeat(60)}</article>`))).render,
    ).toBe(false)
  })

  test('scripts and an empty static read: rendered; the same page without scripts: not', () => {
    const bare = shell('<div class="container"><div class="content"></div></div>')
    expect(decideRender('auto', page(bare, true))).toEqual({ render: false, reason: 'no scripts' })
    expect(decideRender('auto', page(shell('<div class="content"></div><script src="/app.js"></script>'), true))).toEqual({
      render: true,
      reason: 'no readable content',
    })
  })

  test('a mass of inline data under little text (a data island the bundle draws) is a shell', () => {
    const data = `<script id="__DATA__" type="application/json">${JSON.stringify({ items: Array.from({ length: 300 }, (_, i) => ({ id: i, text: 'item text' })) })}</script>`
    expect(judgeSignals(shellSignals(shell('<header>Shop</header><main></main>', data)), false).render).toBe(true)
    expect(judgeSignals(shellSignals(shell(`<main>${'<p>Plenty of prose here. </p>'.repeat(80)}</main>`, data)), false).render).toBe(false)
  })
})
