/**
 * Result-page parse speed against its limit: for every saved Google web page, and the HTML pages
 * of every other engine, the parser's time next to a bare streaming htmlparser2 Parser pass over
 * the same bytes (no handlers, no tree: the least any HTML parse can cost), measured in the same
 * run. Google's bars (docs/performance.md): median under 5 ms, slowest under 20 ms.
 *
 *   npm run bench:parse-speed [-- --runs N] [--only <group name part>]
 */
import { Parser } from 'htmlparser2'
import { parseBingSearch } from '../src/engines/bing/bing.parse.ts'
import { parseBraveSearch } from '../src/engines/brave/brave.parse.ts'
import { parseDuckDuckGoSearch } from '../src/engines/duckduckgo/duckduckgo.parse.ts'
import { parseGoogleSearch } from '../src/engines/google/google-search.parse.ts'
import { parseMojeekSearch } from '../src/engines/mojeek/mojeek.parse.ts'
import { parseStartpage } from '../src/engines/startpage/startpage.parse.ts'
import { parseWikipediaSearch } from '../src/engines/wikipedia/wikipedia.parse.ts'
import { listFixtures, readFixture } from '../test/support/fixtures.ts'

const args = process.argv.slice(2)
const RUNS = Number(args[args.indexOf('--runs') + 1]) || 7
const only = args.includes('--only') ? args[args.indexOf('--only') + 1] : undefined

interface Group {
  name: string
  /** Folders under fixtures/ (sub-folders included). */
  dirs: string[]
  parse(html: string): unknown
  bars?: { medianMs: number; slowestMs: number }
}

const GROUPS: Group[] = [
  {
    name: 'google web',
    dirs: ['serp/google/web-desktop', 'serp/google/web-mobile', 'serp/google/web-nojs', 'serp/google/web-basic'],
    parse: (html) => parseGoogleSearch(html),
    bars: { medianMs: 5, slowestMs: 20 },
  },
  { name: 'bing web', dirs: ['serp/bing/web'], parse: (html) => parseBingSearch(html) },
  { name: 'duckduckgo html+lite', dirs: ['serp/duckduckgo/html', 'serp/duckduckgo/lite'], parse: parseDuckDuckGoSearch },
  { name: 'brave web', dirs: ['serp/brave/web'], parse: parseBraveSearch },
  { name: 'mojeek web', dirs: ['serp/mojeek/web'], parse: parseMojeekSearch },
  { name: 'startpage web', dirs: ['serp/startpage/web'], parse: parseStartpage },
  { name: 'wikipedia html', dirs: ['serp/wikipedia/html-search'], parse: (html) => parseWikipediaSearch(html) },
]

/** The limit: htmlparser2's tokenizer and parser over the bytes, with nothing listening. */
const barePass = (html: string) => new Parser({}).end(html)

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.floor(s.length / 2)] ?? 0
}

/** Median of RUNS timed calls, after one untimed warm-up call. */
function timeOf(fn: () => unknown): number {
  fn()
  const times: number[] = []
  for (let i = 0; i < RUNS; i++) {
    const t = performance.now()
    fn()
    times.push(performance.now() - t)
  }
  return median(times)
}

const ms = (n: number) => n.toFixed(2).padStart(7)

// A parse allocates 2-3x the page in tree and index, so the young generation's size shows: with
// `npm start`'s 8 MB semi-space the Google median is 10-20 % slower than with V8's default 16.
const semiSpace = process.execArgv.find((a) => a.startsWith('--max-semi-space-size'))
console.log(`parse speed: per page the median of ${RUNS} runs; per group the median and slowest page`)
console.log(
  `young generation: ${semiSpace ?? "V8's default (16 MB semi-space)"}; as the server runs: node --max-semi-space-size=8 bin/run-ts.mjs bench/parse.bench.ts\n`,
)
console.log('| pages | group | parse median | parse slowest | bare pass median | bare slowest | ratio median | ratio slowest | bars |')
console.log('|---|---|---|---|---|---|---|---|---|')
let failed = false
for (const group of GROUPS.filter((g) => !only || g.name.includes(only))) {
  const pages = group.dirs.flatMap((dir) =>
    listFixtures(dir, true)
      .filter((f) => /\.html?$/.test(f))
      .map((f) => readFixture(`${dir}/${f}`).toString('utf8')),
  )
  const parse: number[] = []
  const bare: number[] = []
  for (const html of pages) {
    parse.push(timeOf(() => group.parse(html)))
    bare.push(timeOf(() => barePass(html)))
  }
  const row = { median: median(parse), slowest: Math.max(...parse), bareMedian: median(bare), bareSlowest: Math.max(...bare) }
  let bars = '-'
  if (group.bars) {
    const ok = row.median < group.bars.medianMs && row.slowest < group.bars.slowestMs
    failed ||= !ok
    bars = `${ok ? 'met' : 'NOT met'} (median < ${group.bars.medianMs} ms, slowest < ${group.bars.slowestMs} ms)`
  }
  console.log(
    `| ${pages.length} | ${group.name} | ${ms(row.median)} ms | ${ms(row.slowest)} ms | ${ms(row.bareMedian)} ms | ${ms(row.bareSlowest)} ms | ${(row.median / row.bareMedian).toFixed(2)}x | ${(row.slowest / row.bareSlowest).toFixed(2)}x | ${bars} |`,
  )
}
if (failed) console.log('\nGoogle bars not met on this machine (numbers are noisy while other work loads the CPU).')
