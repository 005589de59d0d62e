import { readDocument } from '../../src/features/reading/reader.service.ts'
import { loadArticleBenchmark } from '../reader/corpora.ts'
import { shingleCounts, stripMarkdown } from '../reader/scoring.ts'
const page = loadArticleBenchmark().find((p) => p.id.startsWith(process.argv[2]!))!
const r = await readDocument({ url: page.url, contentType: 'html', body: Buffer.alloc(0), text: page.html }, { format: 'markdown' })
const text = stripMarkdown(r.markdown ?? '')
console.log(shingleCounts(text, page.gold), text.length, page.gold.length)
const tok = (s: string) => s.match(/[\p{L}\p{N}\p{M}_]+/gu) ?? []
console.log(tok(text).length, tok(page.gold).length)
const cnt = (s: string) => { const m = new Map<string, number>(); for (const l of s.split(/\n+/).map((x) => tok(x).join(' ')).filter(Boolean)) m.set(l, (m.get(l) ?? 0) + 1); return m }
const a = cnt(text), g = cnt(page.gold)
for (const [l, n] of g) if ((a.get(l) ?? 0) < n) console.log(`- ${n - (a.get(l) ?? 0)}x ${l.slice(0, 120)}`)
for (const [l, n] of a) if ((g.get(l) ?? 0) < n) console.log(`+ ${n - (g.get(l) ?? 0)}x ${l.slice(0, 120)}`)
