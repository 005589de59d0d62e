/**
 * Shows what Trawl's reader got wrong on one article-benchmark page:
 *   node bin/run-ts.mjs bench/reader/inspect.ts <id-prefix>
 */
import { readDocument } from '../../src/features/reading/reader.service.ts'
import { loadArticleBenchmark } from './corpora.ts'
import { stripMarkdown } from './scoring.ts'

const prefix = process.argv[2] ?? ''
const page = loadArticleBenchmark().find((p) => p.id.startsWith(prefix))
if (!page) throw new Error(`no page ${prefix}`)
const r = await readDocument({ url: page.url, contentType: 'html', body: Buffer.alloc(0), text: page.html }, { format: 'markdown' })
const words = (s: string) => s.match(/[\p{L}\p{N}_]+/gu) ?? []
const ours = stripMarkdown(r.markdown ?? '')
const goldLines = page.gold.split(/\n+/).filter(Boolean)
const oursFlat = words(ours).join(' ')
console.log(`${page.url}\ntitle: ${r.title}\n--- gold paragraphs missing from ours:`)
for (const l of goldLines) if (!oursFlat.includes(words(l).join(' '))) console.log(`  - ${l.slice(0, 160)}`)
const goldFlat = words(page.gold).join(' ')
console.log('--- our paragraphs not in gold:')
for (const l of ours.split(/\n+/).filter((x) => x.trim())) if (!goldFlat.includes(words(l).join(' '))) console.log(`  + ${l.slice(0, 160)}`)
