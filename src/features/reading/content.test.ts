import type { Element } from 'domhandler'
import { parseDocument } from 'htmlparser2'
import { describe, expect, test } from 'vitest'
import { furnitureLevel, measure } from './content.extract.ts'
import { trimToArticleBody } from './content.hint.ts'
import { findFirst, removeNodes, textOf } from './dom.utils.ts'
import { readDocument } from './reader.service.ts'

const read = async (html: string) =>
  (await readDocument({ url: 'https://example.com/a', contentType: 'html', body: Buffer.from(html) }, { format: 'markdown' })).markdown
const PROSE = 'This sentence is long enough to count as prose in the article, and it ends with a period. '

describe('content heuristics', () => {
  test('removeNodes removes a batch and relinks siblings', () => {
    const doc = parseDocument('<div><i>0</i><i>1</i><i>2</i><i>3</i><i>4</i></div>')
    const div = findFirst(doc, (el) => el.name === 'div')!
    const kids = div.children.slice()
    removeNodes([kids[1]!, kids[3]!, kids[4]!])
    expect(div.children.map((c) => textOf(c))).toEqual(['0', '2'])
    expect(kids[0]!.next).toBe(kids[2])
    expect(kids[2]!.prev).toBe(kids[0])
    expect(kids[2]!.next).toBeNull()
    expect(kids[3]!.parent).toBeNull()
  })

  test('short table cells are judged as one row', () => {
    const doc = parseDocument('<table><tr><td>1.</td><td>TS Göppingen I</td><td>WÜ</td><td>50,59 sec.</td></tr></table>')
    const stats = measure(doc)
    const tr = findFirst(doc, (el) => el.name === 'tr')!
    const td = findFirst(doc, (el) => el.name === 'td')!
    expect(stats.get(tr)).toMatchObject({ text: 28, good: 28, bad: 0 })
    expect(stats.get(td)).toMatchObject({ text: 0, good: 0, bad: 0 })
  })

  test('class words do not make inline text furniture', () => {
    const el = (html: string) => parseDocument(html).children[0] as Element
    expect(furnitureLevel(el('<a class="popup" href="#">x</a>'))).toBe(0)
    expect(furnitureLevel(el('<div class="popup">x</div>'))).toBe(1)
    expect(furnitureLevel(el('<div class="jp-relatedposts">x</div>'))).toBe(2)
  })

  test('a paragraph that is one short link stays; a headline teaser and a "back" link go', async () => {
    const md = await read(
      `<article><h1>T</h1><p>${PROSE.repeat(4)}</p><p><a href="/data.csv">Download the data</a></p>` +
        `<p><a href="/other">Another headline about something else entirely today</a></p><p><a href="/">Back</a></p><p>${PROSE.repeat(4)}</p></article>`,
    )
    expect(md).toContain('[Download the data](https://example.com/data.csv)')
    expect(md).not.toContain('Another headline')
    expect(md).not.toContain('Back')
  })

  test('articleBody trims paragraphs it does not contain, and is ignored when it is a teaser', () => {
    const para = (i: number) => `Paragraph number ${i} tells a different part of the same story in plain words.`
    const html = `<div><p>${para(1)}</p><p>Get our weekly newsletter with the best stories from this site delivered.</p><p>${para(2)}</p><p>${para(3)}</p></div>`
    const root = () => findFirst(parseDocument(html), (el) => el.name === 'div')!
    const r = root()
    expect(trimToArticleBody(r, [1, 2, 3].map(para).join(' '))).toBe(1)
    expect(textOf(r)).toBe([1, 2, 3].map(para).join(''))
    expect(trimToArticleBody(root(), para(1))).toBe(0)
  })
})
