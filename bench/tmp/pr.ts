import { readDocument } from '../../src/features/reading/reader.service.ts'
import { loadArticleBenchmark } from '../reader/corpora.ts'
import { shingleCounts, stripMarkdown } from '../reader/scoring.ts'
const page = loadArticleBenchmark().find((p) => p.id.startsWith(process.argv[2]!))!
const r = await readDocument({ url: page.url, contentType: 'html', body: Buffer.alloc(0), text: page.html }, { format: 'markdown' })
const text = stripMarkdown(r.markdown ?? '')
console.log(shingleCounts(text, page.gold), text.length, page.gold.length)
const tok = (s: string) => s.match(/[\p{L}\p{N}\p{M}_]+/gu) ?? []
console.log(tok(text).length, tok(page.gold).length)
