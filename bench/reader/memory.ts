/**
 * Heap after GC while one system reads the trafilatura corpus twice: flat means no leak.
 *   node --expose-gc bin/run-ts.mjs bench/reader/memory.ts [trawl|readability]
 */
import { readDocument } from '../../src/reader/reader.service.ts'
import { readWithReadability } from './baseline.ts'
import { loadTrafilaturaEval } from './corpora.ts'

const system = process.argv[2] ?? 'trawl'
const pages = loadTrafilaturaEval()
const gc = (globalThis as { gc?: () => void }).gc ?? (() => {})
const mb = (n: number) => `${(n / 1048576).toFixed(0)} MB`
const report = (label: string) => {
  gc()
  const m = process.memoryUsage()
  console.log(`${system} ${label}: heap ${mb(m.heapUsed)} rss ${mb(m.rss)}`)
}
report('loaded')
for (let round = 1; round <= 2; round++) {
  for (const p of pages) {
    if (system === 'trawl') await readDocument({ url: p.url, contentType: 'html', body: Buffer.alloc(0), text: p.html }, { format: 'markdown' })
    else readWithReadability(p.html, p.url)
  }
  report(`after round ${round}`)
}
