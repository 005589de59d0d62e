import * as cheerio from 'cheerio'
import type { AnyNode, Element } from 'domhandler'
import { describe, expect, it } from 'vitest'
import { readFixture } from '../../../test/support/fixtures.ts'
import { loadPage } from './html.ts'
import { closestMatch, matches, selectAll, selectOne } from './select.ts'

// The selectors the result parsers run, and a few shapes around them.
const SELECTORS = [
  'a',
  'a[href]',
  'h3',
  'a h3',
  'a h3, a [role="heading"][aria-level="3"], h3 a[href], [role="heading"][aria-level="3"] a[href]',
  'h2, [role="heading"][aria-level="2"]',
  '[data-q]',
  '[aria-expanded]',
  '#rso',
  '#tads a, #tadsb a, #bottomads a, #tvcap a',
  'a[href*="/aclk?"], a[data-pcu], a[data-rw]',
  '[style*="line-clamp"], [data-content-feature="1"], .VwiC3b, span.st',
  '[data-attrid^="kc:/"], [data-attrid^="ss:/"], [data-attrid^="hw:/"]',
  'img[src^="http"]',
  '.g',
  'div.g a',
  'cite',
  '[role="text"]',
  'span, div',
]

const PAGES = [
  'serp/google/web-desktop/zlurad-featured-snippet.html',
  'serp/google/web-mobile/zlurad-google.html',
  'serp/google/web-nojs/zlurad-coffee-nojs.html',
]

describe('compiled selectors over the element index', () => {
  it.each(PAGES)('find the same elements as cheerio on %s', (path) => {
    const $ = loadPage(readFixture(path).toString('utf8'))
    const root = $.root()[0] as AnyNode
    const body = $('body')[0] as Element
    // Scopes: the document, the body, and some elements deep inside (where ancestor scoping matters).
    const scopes: AnyNode[] = [
      root,
      body,
      ...$('div')
        .toArray()
        .filter((_, i) => i % 97 === 0),
    ]
    for (const selector of SELECTORS) {
      for (const scope of scopes) {
        const expected = $(scope).find(selector).toArray()
        expect(selectAll($, scope, selector), selector).toEqual(expected)
        expect(selectOne($, scope, selector), selector).toBe(expected[0])
      }
    }
    for (const el of $('a, span').toArray().slice(0, 300)) {
      for (const selector of ['a', 'h3, [role="heading"]', '#rhs, .kp-wholepage', '[data-attrid], #rhs, .kp-wholepage', 'table, [role="list"]']) {
        expect(closestMatch(el, selector), selector).toBe($(el).closest(selector)[0])
        expect(matches(el as Element, selector), selector).toBe($(el).is(selector))
      }
    }
  })

  it('refuses syntax outside the subset', () => {
    const $ = cheerio.load('<p>x</p>')
    expect(() => selectAll($, $.root()[0] as AnyNode, 'p > a')).toThrow(/unsupported selector/)
    expect(() => selectAll($, $.root()[0] as AnyNode, 'a:first-child')).toThrow(/unsupported selector/)
  })
})
