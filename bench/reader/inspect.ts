/**
 * Shows what Trawl's reader got wrong on one page:
 *   node bin/run-ts.mjs bench/reader/inspect.ts <id-prefix> [aeb|traf|rtp] [--full]
 * aeb/rtp: gold paragraphs we miss and our paragraphs not in gold; traf: the segments we get wrong.
 */
import { parseDocument } from 'htmlparser2'
import { writeMarkdown } from '../../src/reader/markdown.convert.ts'
import { readDocument } from '../../src/reader/reader.service.ts'
import { readWithReadability } from './baseline.ts'
import { loadArticleBenchmark, loadReadabilityPages, loadTrafilaturaEval } from './corpora.ts'
import { pageF1, shingleCounts, stripMarkdown } from './scoring.ts'

const [prefix = '', corpus = 'aeb'] = process.argv.slice(2).filter((a) => !a.startsWith('--'))
const full = process.argv.includes('--full')
const words = (s: string) => s.match(/[\p{L}\p{N}_]+/gu) ?? []
const squash = (s: string) => s.replace(/\s+/g, ' ').trim()
const htmlToText = (html: string) =>
  stripMarkdown(writeMarkdown(parseDocument(html).children, { baseUrl: 'http://fakehost/', plain: true, links: [], images: [], keepRepeats: true }))

async function ours(html: string, url: string) {
  const r = await readDocument({ url, contentType: 'html', body: Buffer.alloc(0), text: html }, { format: 'markdown' })
  console.log(`${url}\ntitle: ${r.title}`)
  if (full) console.log(`--- ours:\n${r.markdown}\n---`)
  return stripMarkdown(r.markdown ?? '')
}

if (corpus === 'traf') {
  const page = loadTrafilaturaEval().find((p) => p.id.includes(prefix))
  if (!page) throw new Error(`no page ${prefix}`)
  const text = squash(await ours(page.html, page.url))
  const theirs = squash(stripMarkdown(readWithReadability(page.html, page.url).markdown))
  for (const s of page.with)
    console.log(`${text.includes(squash(s)) ? 'ok  ' : 'MISS'} with    ${s}  (readability: ${theirs.includes(squash(s)) ? 'ok' : 'miss'})`)
  for (const s of page.without)
    console.log(`${text.includes(squash(s)) ? 'LEAK' : 'ok  '} without ${s}  (readability: ${theirs.includes(squash(s)) ? 'leak' : 'ok'})`)
} else {
  const pages = corpus === 'rtp' ? loadReadabilityPages(htmlToText) : loadArticleBenchmark()
  const page = pages.find((p) => p.id.startsWith(prefix))
  if (!page) throw new Error(`no page ${prefix}`)
  const text = await ours(page.html, page.url)
  console.log(`F1 ${pageF1(shingleCounts(text, page.gold)).toFixed(3)}`)
  const goldLines = page.gold.split(/\n+/).filter(Boolean)
  const oursFlat = words(text).join(' ')
  console.log('--- gold paragraphs missing from ours:')
  for (const l of goldLines) if (!oursFlat.includes(words(l).join(' '))) console.log(`  - ${l.slice(0, 160)}`)
  const goldFlat = words(page.gold).join(' ')
  console.log('--- our paragraphs not in gold:')
  for (const l of text.split(/\n+/).filter((x) => x.trim())) if (!goldFlat.includes(words(l).join(' '))) console.log(`  + ${l.slice(0, 160)}`)
}
