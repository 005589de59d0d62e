import type { AnyNode } from 'domhandler'
import { parseDocument } from 'htmlparser2'
import { describe, expect, it } from 'vitest'
import { listFixtures, readFixture } from '../../test/support/fixtures.ts'
import { random } from '../../test/support/random.ts'
import { buildDocument } from './html-tree.ts'

/** Every node as a line (type, name, attributes in order, data), with its links checked on the way. */
function shape(node: AnyNode, out: string[] = []): string[] {
  const n = node as AnyNode & { name?: string; attribs?: Record<string, string>; data?: string; children?: AnyNode[] }
  out.push(`${n.type}|${n.name ?? ''}|${n.attribs ? JSON.stringify(Object.entries(n.attribs)) : ''}|${n.data ?? ''}`)
  const kids = n.children ?? []
  for (let i = 0; i < kids.length; i++) {
    const kid = kids[i] as AnyNode
    if (kid.parent !== node || kid.prev !== (kids[i - 1] ?? null) || kid.next !== (kids[i + 1] ?? null)) out.push('!links')
    shape(kid, out)
  }
  out.push('/')
  return out
}

const sameTree = (html: string) => expect(shape(buildDocument(html))).toEqual(shape(parseDocument(html)))

describe('buildDocument', () => {
  it.each([
    ['implied closes', '<p>a<p>b<div>c</div><li>1<li>2<ul><li>3</ul><table><tr><td>x<td>y<tr><th>z</table><dl><dt>t<dd>d</dl>'],
    ['stray end tags', '</p>a</br><b>1</i>2</b></div><span>s</P></span></nope>'],
    ['void elements', '<img src=x><br/><input value=v>text<hr>after<meta charset="utf-8"></img><link>'],
    ['foreign content', '<svg><path d="M0"/><g><circle r=1 /></g><foreignObject><div/>x</foreignObject></svg><div/>y<math><mi/>z</math>'],
    ['case and repeats', '<DIV CLASS="A" class="b" Id=X data-Q="1">t</Div><A HREF="/x" href="/y">l</a>'],
    ['prototype names', '<a constructor="c" toString=t __proto__="p" hasOwnProperty=h>x</a>'],
    ['entities', '<p title="a &amp; b &lt; c &#x41;&unknown;">x &amp; y &nbsp;&#169;&copy z</p>'],
    ['comments, declarations, CDATA', '<!doctype html><!-- c --><?xml version="1.0"?><![CDATA[d]]><!--->x<!---->y<!DOCTYPE other>'],
    ['raw text', '<title>a <b> &amp;</title><textarea><p>t</textarea><script>if (a<b) {}</script><style>p>q{}</style>'],
    ['unterminated', '<div><span>open<a href="x'],
    ['unterminated comment', '<p>x<!-- never closed'],
    ['attributes without values', '<input disabled checked=checked readonly><option selected>o'],
    ['forms', '<form><select><option>a<option>b<optgroup><option>c</select><button>b<input></form>'],
    ['body and head', '<html><head><link rel=x><script>1</script><body><p>b</body></html>'],
    ['text split by entities', 'one&amp;two&lt;three<b>&gt;</b>four'],
    ['uncommon names', '<g-scrolling-carousel data-x-y="1"><custom-el Foo-Bar=z>k</custom-el></g-scrolling-carousel>'],
    ['non-ASCII names', '<dİv clİss=x>t</dİv><straße>u</straße>'],
  ])('builds the same tree as parseDocument: %s', (_name, html) => sameTree(html))

  it('builds the same tree as parseDocument for every saved page', () => {
    const names = listFixtures('serp', true).filter((name) => /\.html?$/.test(name))
    expect(names.length).toBeGreaterThan(60)
    for (const name of names) sameTree(readFixture(`serp/${name}`).toString('utf8'))
  })

  it('builds the same tree as parseDocument for 3,000 generated tag soups', () => {
    const next = random(7)
    const pick = <T>(xs: readonly T[]) => xs[Math.floor(next() * xs.length)] as T
    const NAMES = [
      'div',
      'DIV',
      'p',
      'P',
      'li',
      'ul',
      'td',
      'tr',
      'table',
      'br',
      'img',
      'svg',
      'path',
      'math',
      'mi',
      'title',
      'option',
      'select',
      'b',
      'a',
      'x-y',
      'body',
      'head',
      'desc',
      'textarea',
      'script',
      'input',
    ]
    const ATTRS = ['class', 'CLASS', 'id', 'href', 'data-q', 'constructor', 'x']
    const VALUES = ['', '=v', '="a b"', "='&amp;'", '=&lt;', '="x&#65;y"']
    const LOOSE = ['text', ' ', '&amp;', '&copy', '<!--c-->', '<!doctype x>', '<![CDATA[y]]>', '<', '>', '</', '&#65;', '<?pi x?>']
    const token = () => {
      const r = next()
      if (r < 0.45) {
        let attrs = ''
        for (let k = Math.floor(next() * 4); k > 0; k--) attrs += ` ${pick(ATTRS)}${pick(VALUES)}`
        return `<${pick(NAMES)}${attrs}${pick(['>', '/>', ' >'])}`
      }
      return r < 0.75 ? `</${pick(NAMES)}>` : pick(LOOSE)
    }
    for (let n = 0; n < 3000; n++) {
      let html = ''
      for (let k = Math.floor(next() * 40); k > 0; k--) html += token()
      expect(shape(buildDocument(html)), html).toEqual(shape(parseDocument(html)))
    }
  })
})
