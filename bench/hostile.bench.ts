/**
 * How long /livez takes to answer while hostile pages and engine answers are read (the pages of
 * test/security-hostile-pages.test.ts: a 1,000,000-letter word, 120,000 Chinese characters without
 * a break, a 112,000-character SearXNG title, gzip listed 2,000 times, 100,000 nested elements),
 * against ordinary pages of about the same size read the same way, as the baseline in the same run.
 * Measured from outside: the server runs as `npm start` runs it (SQLite, its own process); the bench
 * process serves the pages and the fake SearXNG and asks /livez one request after the other while
 * each case runs, keeping the slowest round trip. Each round starts a fresh server for the hostile
 * cases and another for the ordinary ones, so that the first case is the server's first page read
 * and first token count (loading the tokenizer must not stall a fresh server either).
 * Against the bar of docs/operations.md: /livez within 100 ms all through a hostile read.
 * Run: npm run bench:hostile
 */

import type { IncomingMessage, ServerResponse } from 'node:http'
import { searxngAnswer } from '../src/engines/searxng/searxng.fixture.ts'
import { fakeUpstream } from '../test/support/fake-upstream.ts'
import { hostileRoutes, hostileSearx, html, PROSE, SEARX_HOST } from '../test/support/hostile-pages.ts'
import { pathServer } from '../test/support/path-server.ts'
import { peakRssMb, startTrawlProcess, type TrawlProcess } from './support/trawl-process.ts'

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3)
const BAR_MS = 100
/** A read that takes longer is a failure, not a hang of the bench. */
const REQUEST_TIMEOUT_MS = 120_000

/** Deterministic picks from `items` (the same page every run). */
function picker(items: readonly string[], seed: number): () => string {
  return () => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff
    return items[seed % items.length]!
  }
}

/** An HTML article of `paragraphs`, each a run of picked sentences, until the text is `chars` long. */
function ordinaryArticle(title: string, sentences: readonly string[], chars: number, perParagraph: number, joiner: string): string {
  const next = picker(sentences, 7)
  const paragraphs: string[] = []
  let length = 0
  while (length < chars) {
    const p = Array.from({ length: perParagraph }, next).join(joiner)
    paragraphs.push(`<p>${p}</p>`)
    length += p.length
  }
  return `<!doctype html><html><head><title>${title}</title></head><body><article><h1>${title}</h1>${paragraphs.join('\n')}</article></body></html>`
}

const ENGLISH = [
  'The harbour was quiet in the early morning, and the fishing boats had not yet come back.',
  'Most of the town still depends on the sea, although tourism has grown over the last twenty years.',
  'A new road along the coast opened in spring, cutting the drive to the city by almost an hour.',
  'Local officials say the council will decide on the budget for the library before the end of the month.',
  'Residents who spoke to us were divided: some welcome the visitors, others worry about rising rents.',
  'The old market hall, built in 1887, is being restored with help from a regional heritage fund.',
  'Weather forecasters expect a dry summer, which farmers in the valley fear could hurt the harvest.',
  'Schools in the district reported better results in reading and mathematics than the year before.',
  'The ferry service to the islands will run twice a day from June, weather permitting.',
  'A small museum near the church tells the story of the families who built the first houses here.',
  'Walking trails through the hills are marked in green and blue, and maps are free at the station.',
  'The bakery on the main square opens at six and is usually sold out of bread by noon.',
]
const CHINESE = [
  '清晨的港口很安静，渔船还没有回来。',
  '镇上的大多数人仍然以海为生，不过近二十年来旅游业发展很快。',
  '沿海的新公路在春天通车，到城里的车程缩短了将近一个小时。',
  '当地官员表示，议会将在月底前决定图书馆的预算。',
  '接受采访的居民意见不一：有人欢迎游客，也有人担心房租上涨。',
  '建于一八八七年的老市场正在地区遗产基金的帮助下进行修复。',
  '气象部门预计今年夏天会比较干燥，山谷里的农民担心收成受到影响。',
  '区里的学校报告说，今年学生的阅读和数学成绩都比去年好。',
  '从六月起，去岛上的渡轮每天开两班，天气不好时停航。',
  '教堂旁边的小博物馆讲述了最早在这里建房的那些家庭的故事。',
  '山里的步道用绿色和蓝色标出，车站可以免费领取地图。',
  '广场上的面包店早上六点开门，面包通常不到中午就卖完了。',
]

/** About 1 MB of ordinary English prose, in paragraphs. */
const ORDINARY_LONG = ordinaryArticle('A coastal town', ENGLISH, 1_000_000, 8, ' ')
/** About 120,000 Chinese characters of ordinary sentences, with their punctuation, in paragraphs. */
const ORDINARY_HAN = ordinaryArticle('一个海边小镇', CHINESE, 120_000, 10, '')
/** About 1 MB of ordinary markup: cards a few elements deep, as a listing page nests them. */
const ORDINARY_DEEP = (() => {
  const next = picker(ENGLISH, 11)
  const cards: string[] = []
  let length = 0
  for (let i = 0; length < 1_000_000; i++) {
    const card = `<div class="card"><div class="card-body"><h3><a href="/item/${i}">Item ${i}</a></h3><p><span>${next()}</span></p><ul><li><a href="/item/${i}/more">More</a></li></ul></div></div>`
    cards.push(card)
    length += card.length
  }
  return `<!doctype html><html><head><title>Listing</title></head><body><main><section><div class="grid">${cards.join('\n')}</div></section></main></body></html>`
})()

/** The ordinary counterparts, beside the hostile pages on the same site. */
const routes = {
  ...hostileRoutes,
  '/ordinary-long': html(ORDINARY_LONG),
  '/ordinary-han': html(ORDINARY_HAN),
  '/plain': html(PROSE),
  '/ordinary-deep': html(ORDINARY_DEEP),
}

/** SearXNG's answer to the ordinary queries: titles and snippets of ordinary length, a few suggestions. */
function ordinarySearx(q: string, siteBase: string, res: ServerResponse) {
  const results =
    q === 'ordinary pages'
      ? [1, 2, 3].map((n) => ({ url: `${siteBase}/plain?n=${n}`, title: `Plain ${n}`, content: 'A page.', engine: 'bing' }))
      : [1, 2, 3].map((n) => ({ url: `https://ordinary.example/${n}`, title: ENGLISH[n]!.slice(0, 60), content: ENGLISH[n + 3], engine: 'bing' }))
  const suggestions = Array.from({ length: 10 }, (_, i) => `suggestion ${i}`)
  res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(searxngAnswer({ results, suggestions })))
}

/** What each case reads, hostile and ordinary. */
interface Pages {
  long: string
  han: string
  search: string
  stacked: string
  stackedStatus: number
  context: string
  deep: string
}
const HOSTILE: Pages = {
  long: '/long-word',
  han: '/han-run',
  search: 'long',
  stacked: '/stacked',
  stackedStatus: 503,
  context: 'stacked pages',
  deep: '/deep',
}
const ORDINARY: Pages = {
  long: '/ordinary-long',
  han: '/ordinary-han',
  search: 'ordinary',
  stacked: '/plain',
  stackedStatus: 200,
  context: 'ordinary pages',
  deep: '/ordinary-deep',
}

/** A case: its requests, each answered in full; returns the statuses and the ones expected. */
type Work = (call: Call, pages: Pages, base: string) => Promise<{ got: number[]; want: number[] }>
type Call = (method: string, path: string, body?: unknown) => Promise<number>

const CASES: { name: string; work: Work }[] = [
  {
    name: '1. webpage, 1,000,000-letter word',
    work: async (call, p, base) => ({ got: [await call('POST', '/v1/webpage', { url: `${base}${p.long}` })], want: [200] }),
  },
  {
    name: '2. the same, cached, max_tokens',
    work: async (call, p, base) => ({
      got: [await call('POST', '/v1/webpage', { url: `${base}${p.long}`, max_age: 3600, max_tokens: 100_000 })],
      want: [200],
    }),
  },
  {
    name: '3. webpage + extract, Han run',
    work: async (call, p, base) => ({
      got: await Promise.all([call('POST', '/v1/webpage', { url: `${base}${p.han}` }), call('POST', '/v1/extract', { urls: [`${base}${p.han}`] })]),
      want: [200, 200],
    }),
  },
  {
    name: '4. search, 112,000-char title',
    work: async (call, p) => ({ got: [await call('GET', `/v1/search?q=${encodeURIComponent(p.search)}&engine=searxng`)], want: [200] }),
  },
  {
    name: '5. webpage, gzip x 2,000',
    work: async (call, p, base) => ({ got: [await call('POST', '/v1/webpage', { url: `${base}${p.stacked}` })], want: [p.stackedStatus] }),
  },
  {
    name: '6. context over 3 such pages',
    work: async (call, p) => ({ got: [await call('POST', '/v1/context', { q: p.context, engine: 'searxng', num: 3 })], want: [200] }),
  },
  {
    name: '7. webpage x 3, nested 100,000',
    work: async (call, p, base) => {
      const got: number[] = []
      for (let i = 0; i < 3; i++) got.push(await call('POST', '/v1/webpage', { url: `${base}${p.deep}?n=${i}` }))
      return { got, want: [200, 200, 200] }
    },
  },
]

interface Measured {
  slowestMs: number
  polls: number
  tookMs: number
  failures: number
}

/** Runs `work` while asking /livez again and again, one request after the other (as whileLivez in the test). */
async function whileLivez(base: string, work: () => Promise<number>): Promise<Measured> {
  let done = false
  let slowestMs = 0
  let polls = 0
  let failures = 0
  const poller = (async () => {
    while (!done) {
      const started = performance.now()
      try {
        const res = await fetch(`${base}/livez`, { signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) })
        await res.arrayBuffer()
        if (res.status !== 200) failures++
      } catch {
        failures++
      }
      slowestMs = Math.max(slowestMs, performance.now() - started)
      polls++
    }
  })()
  const started = performance.now()
  try {
    failures += await work()
  } finally {
    done = true
    await poller
  }
  return { slowestMs, polls, tookMs: performance.now() - started, failures }
}

/** One fresh server through every case in order; its measures by case and its peak RSS. */
async function round(pages: Pages, env: Record<string, string>, siteBase: string): Promise<{ cases: Measured[]; rssMb: number }> {
  const trawl: TrawlProcess = await startTrawlProcess(env, { logToFile: true })
  const call: Call = async (method, path, body) => {
    try {
      const res = await fetch(`${trawl.base}${path}`, {
        method,
        headers: { authorization: `Bearer ${trawl.key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
      })
      await res.arrayBuffer()
      return res.status
    } catch {
      return 0
    }
  }
  try {
    const cases: Measured[] = []
    for (const c of CASES) {
      cases.push(
        await whileLivez(trawl.base, async () => {
          const { got, want } = await c.work(call, pages, siteBase)
          const wrong = got.filter((status, i) => status !== want[i])
          if (wrong.length > 0) console.log(`  ${c.name}: answered ${got.join(', ')}, expected ${want.join(', ')}`)
          return wrong.length
        }),
      )
    }
    return { cases, rssMb: peakRssMb(trawl.pid) }
  } finally {
    await trawl.close()
  }
}

const site = await pathServer(routes)
const hostile = hostileSearx(() => site.base)
const engine = await fakeUpstream((req: IncomingMessage, res: ServerResponse) => {
  const q = new URL(req.url ?? '/', 'http://x').searchParams.get('q') ?? ''
  if (q.startsWith('ordinary')) ordinarySearx(q, site.base, res)
  else hostile(req, res)
})
const env = {
  TRAWL_SEARXNG_URL: `http://${SEARX_HOST}`,
  TRAWL_UPSTREAM_HOSTS: `*=${engine.url}`,
  TRAWL_UPSTREAM_TIMEOUT_MS: '5000',
  TRAWL_BROWSER: 'off',
}
const rounds: { hostile: Awaited<ReturnType<typeof round>>; ordinary: Awaited<ReturnType<typeof round>> }[] = []
try {
  for (let i = 0; i < ROUNDS; i++) {
    console.log(`round ${i + 1} of ${ROUNDS}`)
    rounds.push({ hostile: await round(HOSTILE, env, site.base), ordinary: await round(ORDINARY, env, site.base) })
  }
} finally {
  await engine.close()
  await site.close()
}

const ms = (x: number) => x.toFixed(1)
const header = [
  'case'.padEnd(34),
  'hostile slowest /livez, ms: by round; worst'.padEnd(44),
  'polls'.padStart(6),
  'ordinary worst'.padStart(15),
  'polls'.padStart(6),
  'ratio'.padStart(7),
  `≤ ${BAR_MS} ms`.padStart(9),
  'took ms h/o'.padStart(16),
  'failed'.padStart(7),
]
console.log(`\nslowest /livez round trip while each case runs, ${ROUNDS} rounds, a fresh server for each side of a round`)
console.log("polls: the fewest /livez answers during the case in a round; took: the case's slowest run, hostile / ordinary")
console.log(header.join(' '))
let failures = 0
let barMet = 0
let worstCase = { name: '', ms: 0 }
let worstRatio = { name: '', ratio: 0 }
CASES.forEach((c, i) => {
  const h = rounds.map((r) => r.hostile.cases[i]!)
  const o = rounds.map((r) => r.ordinary.cases[i]!)
  const hWorst = Math.max(...h.map((m) => m.slowestMs))
  const oWorst = Math.max(...o.map((m) => m.slowestMs))
  const ratio = hWorst / Math.max(oWorst, 0.1)
  const failed = [...h, ...o].reduce((sum, m) => sum + m.failures, 0)
  failures += failed
  if (hWorst <= BAR_MS) barMet++
  if (hWorst > worstCase.ms) worstCase = { name: c.name, ms: hWorst }
  if (ratio > worstRatio.ratio) worstRatio = { name: c.name, ratio }
  const took = `${Math.max(...h.map((m) => m.tookMs)).toFixed(0)} / ${Math.max(...o.map((m) => m.tookMs)).toFixed(0)}`
  console.log(
    [
      c.name.padEnd(34),
      `${h.map((m) => ms(m.slowestMs)).join(' / ')}; ${ms(hWorst)}`.padEnd(44),
      String(Math.min(...h.map((m) => m.polls))).padStart(6),
      ms(oWorst).padStart(15),
      String(Math.min(...o.map((m) => m.polls))).padStart(6),
      ratio.toFixed(2).padStart(7),
      (hWorst <= BAR_MS ? 'yes' : 'NO').padStart(9),
      took.padStart(16),
      String(failed).padStart(7),
    ].join(' '),
  )
})
console.log(
  `server peak RSS by round, MB: hostile ${rounds.map((r) => r.hostile.rssMb.toFixed(0)).join(' / ')}, ordinary ${rounds.map((r) => r.ordinary.rssMb.toFixed(0)).join(' / ')}`,
)
console.log(
  `summary: bar ≤ ${BAR_MS} ms met in ${barMet} of ${CASES.length} hostile cases; slowest /livez ${ms(worstCase.ms)} ms (${worstCase.name}); ` +
    `worst ratio to ordinary ${worstRatio.ratio.toFixed(2)} (${worstRatio.name}); ${failures} failed answers`,
)
if (failures > 0) process.exitCode = 1
