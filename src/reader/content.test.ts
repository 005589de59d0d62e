import type { Element } from 'domhandler'
import { parseDocument } from 'htmlparser2'
import { describe, expect, test } from 'vitest'
import { isDateline } from './content.dateline.ts'
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

  test('datelines: a date with a publishing lead or a short byline tail, not a sentence', () => {
    expect(isDateline('November 12, 2018 | BY: Beachbody')).toBe(true)
    expect(isDateline('Posted on Oktober 27, 2015 by Admin')).toBe(true)
    expect(isDateline('UPDATED: Tue., Nov. 19, 2019')).toBe(true)
    expect(isDateline('First Published on Nov 20, 2019 01:38 pm')).toBe(true)
    expect(isDateline('posted on April 21, 2015, at 11:29 a.m.')).toBe(true)
    expect(isDateline('Published on: June 25, 2024 5 min read')).toBe(true)
    expect(isDateline('12. März 2019, 10:15 Uhr')).toBe(true)
    expect(isDateline('November 19, 2019 the man was arrested in Ohio.')).toBe(false)
    expect(isDateline('In May 2019 we moved.')).toBe(false)
    expect(isDateline('May 5, 2019: The company said it would close all stores.')).toBe(false)
  })

  test('a dateline line goes; a heading with a date stays', async () => {
    const md = await read(`<article><h1>T</h1><div>Published on: June 25, 2024</div><h2>June 25, 2024</h2><p>${PROSE.repeat(4)}</p></article>`)
    expect(md).not.toContain('Published on')
    expect(md).toContain('## June 25, 2024')
  })

  test('elements classed as captions go, a caption wrapper holding the image stays', async () => {
    const md = await read(
      `<article><h1>T</h1><p>${PROSE.repeat(4)}</p><div class="wp-caption"><img src="/a.jpg" alt="A"><p class="wp-caption-text">A man rides a donkey, photographed for this story.</p></div>` +
        `<div class="image__caption">Another caption sentence about the photo above.</div><div class="no-caption"><p>${PROSE}</p></div></article>`,
    )
    expect(md).toContain('![A](https://example.com/a.jpg)')
    expect(md).not.toContain('donkey')
    expect(md).not.toContain('Another caption')
    expect(md).toContain(PROSE.trim())
  })

  test('a link list that leaves the site stays; one to the same site goes', async () => {
    const nav = '<nav><a href="/a">A</a><a href="/b">B</a><a href="/c">C</a></nav>'
    const md = await read(
      `${nav}<article><h1>T</h1><p>${PROSE.repeat(4)}</p><ul><li><a href="https://shop.example.org/x">Get it at the shop for $20</a></li></ul>` +
        `<ul><li><a href="/other-story">Another story on this same site today</a></li></ul>` +
        `<ul><li><a href="https://social.example.net/share?u=https://example.com/a">Share this story with friends</a></li></ul><p>${PROSE.repeat(4)}</p></article>`,
    )
    expect(md).toContain('[Get it at the shop for $20](https://shop.example.org/x)')
    expect(md).not.toContain('Another story')
    expect(md).not.toContain('Share this story')
  })

  test('repeated paragraphs are kept, a repeated non-paragraph block is written once', async () => {
    const line = 'Portion Fix Containers: 1 Green, 1 Red, 1 Yellow, 1 tsp. of olive oil.'
    const cap = 'A long gallery caption that the template repeats for every slide it shows.'
    const md = await read(
      `<article><h1>T</h1><p>${PROSE.repeat(4)}</p><p>${line}</p><p>${PROSE}</p><p>${line}</p><ul><li>${cap}</li><li>${cap}</li></ul></article>`,
    )
    expect((md ?? '').split(line).length - 1).toBe(2)
    expect((md ?? '').split(cap).length - 1).toBe(1)
  })

  test('a paragraph-long block repeated by its sibling is kept', async () => {
    const block = `${PROSE}${PROSE}${PROSE}`.trim()
    const md = await read(`<article><div>${block}</div><div>${block}</div></article>`)
    expect((md ?? '').split(block).length - 1).toBe(2)
  })

  test('linked headlines stay on a page of teasers, and are dropped from an article', async () => {
    const teaser = (i: number) => `<div><h2><a href="/story-${i}">Headline number ${i} of the day</a></h2><p>${PROSE}</p></div>`
    const front = await read(`<main>${[1, 2, 3, 4, 5, 6].map(teaser).join('')}</main>`)
    expect(front).toContain('## [Headline number 6 of the day](https://example.com/story-6)')
    const article = await read(`<main>${[1, 2].map(teaser).join('')}<p>${PROSE.repeat(3)}</p></main>`)
    expect(article).not.toContain('Headline number')
  })

  test('a lone leading h1 worded like the title is the headline', async () => {
    const page = (h1: string) =>
      `<html><head><title>Twitter Lite arrives in Mexico, Venezuela and nine more countries</title></head><body><article><h1>${h1}</h1><p>${PROSE.repeat(4)}</p></article></body></html>`
    // The Markdown opens with the title (reader.core.ts), not with the headline worded otherwise.
    const headline = await read(page('Twitter Lite arrives in 11 Latin American countries'))
    expect(headline).toMatch(/^# Twitter Lite arrives in Mexico, Venezuela and nine more countries\n\nThis sentence/)
    expect(headline).not.toContain('Latin American')
    expect(await read(page('Lorem ipsum'))).toContain('# Lorem ipsum')
  })

  test('an author bio box is furniture', () => {
    const el = parseDocument('<div class="user-bio">x</div>').children[0] as Element
    expect(furnitureLevel(el)).toBe(1)
  })

  test('a trailing block that opens with an unrelated heading is another story', async () => {
    const page = (side: string) =>
      `<html><head><title>Harbour bridge reopens after repairs</title></head><body><div class="page"><h1>Harbour bridge reopens after repairs</h1>` +
      `<div class="story"><p>${PROSE.repeat(3)}</p><p>${PROSE.repeat(3)}</p><p>${PROSE.repeat(3)}</p></div>${side}</div></body></html>`
    const other = '<p>Another city council approved a new housing plan on Monday, with three hundred flats.</p>'
    const body = `# Harbour bridge reopens after repairs\n\n${PROSE.repeat(3).trim()}\n\n${PROSE.repeat(3).trim()}\n\n${PROSE.repeat(3).trim()}`
    expect(await read(page(`<div class="timeline"><h3>Happening now</h3>${other}</div>`))).toBe(body)
    // A heading that shares a word with the title is a section of this story.
    expect(await read(page(`<div class="timeline"><h3>What the bridge costs</h3>${other}</div>`))).toBe(
      `${body}\n\n### What the bridge costs\n\n${other.slice(3, -4)}`,
    )
    // A block built like the story's own is the story's next part.
    expect(await read(page(`<div class="story"><h3>Happening now</h3>${other}</div>`))).toBe(`${body}\n\n### Happening now\n\n${other.slice(3, -4)}`)
  })
})
