import { type AnyNode, isTag } from 'domhandler'
import { parseDocument } from 'htmlparser2'
import { describe, expect, it } from 'vitest'
import { listFixtures, readFixture } from '../../../test/support/fixtures.ts'
import { dropRawText, loadPage } from './html.ts'

/** The tree as text (type, name, attributes, data), with script and style (and `emptied`) content left out. */
function shape(node: AnyNode, emptied: string[] = [], out: string[] = []): string[] {
  if (isTag(node)) out.push(`<${node.name} ${JSON.stringify(node.attribs)}`)
  else if ('data' in node) out.push(`${node.type}:${node.data}`)
  if (isTag(node) && (node.name === 'script' || node.name === 'style')) return out
  if (!(isTag(node) && emptied.includes(node.name))) for (const child of (node as { children?: AnyNode[] }).children ?? []) shape(child, emptied, out)
  out.push('>')
  return out
}

const sameTree = (html: string) => expect(shape(parseDocument(dropRawText(html)))).toEqual(shape(parseDocument(html)))
/** With `dropSvg`, the tree is the whole page's with every svg element's content left out. */
const sameTreeButSvg = (html: string) => expect(shape(parseDocument(dropRawText(html, { dropSvg: true })))).toEqual(shape(parseDocument(html), ['svg']))

describe('dropRawText', () => {
  it('empties script and style elements and keeps their tags', () => {
    expect(dropRawText('<p>a</p><script type="x">if (a<b) {}</script><style>p{}</style><p>b</p>')).toBe(
      '<p>a</p><script type="x"></script><style></style><p>b</p>',
    )
  })

  it.each([
    ['a comment holding a script tag', '<!--<script>--><p>y</p><script >z</script >w'],
    ['a quoted attribute holding a tag', '<a title="<script>">q</a><SCRIPT type=x>1</scripts></SCRIPT\n>2'],
    ['a self-closing script (not raw text)', '<script/>hello<b>bold</b></script>'],
    ['a tag inside <title>', '<title><script></title><p>t</p>'],
    ['an unterminated style', '<style>p{}</style'],
    ['short comments', '<!-->x<script>1</script><!--->y<script>2</script>'],
    ['CDATA', '<![CDATA[<script>]]><p>c</p>'],
    ['a `>` inside a quoted value', '<x a=b/><script a="/>">s</script>'],
    ['stray angle brackets', '<<script>>1<</script>2 a < b <textarea><script></textarea>'],
  ])('builds the same tree: %s', (_name, html) => sameTree(html))

  it('builds the same tree as the whole page for every saved engine page', () => {
    const names = listFixtures('serp', true).filter((name) => /\.html?$/.test(name))
    expect(names.length).toBeGreaterThan(60)
    for (const name of names) sameTree(readFixture(`serp/${name}`).toString('utf8'))
  })

  it('optionally cuts inline data and unused attributes, keeping the rest of each tag', () => {
    const data = `data:image/png;base64,${'A'.repeat(300)}`
    const opts = { cutDataUris: true, dropAttributes: new Set(['jsname']) }
    expect(dropRawText(`<a jsname="x" href="y">t</a><img src="${data}" alt='${data}'><script>1</script>`, opts)).toBe(
      `<a  href="y">t</a><img src="data:image/png;base64," alt='data:image/png;base64,'><script></script>`,
    )
    // Without whitespace before it the name would start a self-closing `/>`: left as it is.
    expect(dropRawText('<a/jsname="x">t</a><b jsname=x>u</b>', opts)).toBe('<a/jsname="x">t</a><b jsname=x>u</b>')
  })

  it.each([
    ['an icon', '<p>a<svg viewBox="0 0 1 1"><path d="M0"/><g><circle r=1 /></g></svg>b</p>'],
    ['nested svgs and upper case', '<SVG><svg><title>t</title></svg><path/></Svg ><i>x</i>'],
    ['a style and a comment inside', '<svg><style>p{}</style><!--</svg>--><text>t</text></svg><b>y</b>'],
    ['a self-closing svg', '<svg/><p>p</p><svg><path d=1></svg>'],
    ['svg-like names', '<svgx><b>1</b></svgx><svg-icon><b>2</b></svg-icon>'],
  ])('dropSvg empties svg elements and nothing else: %s', (_name, html) => sameTreeButSvg(html))

  it('dropSvg leaves an unterminated svg as it is', () => {
    expect(dropRawText('<p>p</p><svg><path d=1>', { dropSvg: true })).toBe('<p>p</p><svg><path d=1>')
  })

  it('dropSvg: every saved engine page builds its tree without svg content, and nothing else changes', () => {
    const names = listFixtures('serp', true).filter((name) => /\.html?$/.test(name))
    let emptied = 0
    for (const name of names) {
      const html = readFixture(`serp/${name}`).toString('utf8')
      sameTreeButSvg(html)
      if (dropRawText(html, { dropSvg: true }).length < dropRawText(html).length) emptied++
    }
    expect(emptied).toBeGreaterThan(10)
  })

  it('loadPage reads text and attributes as cheerio over htmlparser2 does', () => {
    const $ = loadPage('<div id="a" data-x="1">One &amp; two<script>var x = "<b>"</script></div>')
    expect($('#a').text()).toBe('One & two')
    expect($('#a').attr('data-x')).toBe('1')
  })
})
