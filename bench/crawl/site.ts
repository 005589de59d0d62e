import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'

/**
 * A generated 1,000-page site on 127.0.0.1 for the crawl benchmark: article pages of a few KB with
 * a header, navigation, byline, paragraphs, related links and a footer. Pages form a 5-ary tree
 * (every page reachable from `/` within 5 hops) plus seeded random "related" links, so each page
 * has 5-10 links in its article besides the shared navigation. robots.txt disallows `/private/`
 * (20 pages, linked from some public pages), and there is no sitemap: the benchmark measures link
 * following, which is what both crawlers do by default.
 */

export const TOTAL_PAGES = 1000
export const PRIVATE_PAGES = 20
/** Pages a crawler honouring robots.txt can read. */
export const PUBLIC_PAGES = TOTAL_PAGES - PRIVATE_PAGES

const SECTIONS = ['science', 'history', 'travel', 'food', 'design', 'software', 'music', 'sport']
const WORDS = (
  'the of and a to in is it that was for on are with as his they be at one have this from or had by word but what some we can out ' +
  'other were all there when up use your how said an each she which do their time if will way about many then them write would ' +
  'like so these her long make thing see him two has look more day could go come did number sound no most people my over know ' +
  'water than call first who may down side been now find river garden engine market winter harbour village library theory signal ' +
  'measure season ancient modern careful gentle quiet window mountain voyage recipe lantern circuit melody stadium archive'
).split(' ')

/** Deterministic PRNG (xorshift32): the same site on every run, so runs compare. */
function random(seed: number) {
  let s = seed >>> 0 || 1
  return () => {
    s ^= s << 13
    s >>>= 0
    s ^= s >>> 17
    s ^= s << 5
    s >>>= 0
    return s / 0x100000000
  }
}

interface PageSpec {
  path: string
  title: string
  links: number[]
}

function pathOf(id: number): string {
  if (id === 0) return '/'
  if (id >= PUBLIC_PAGES) return `/private/memo-${id - PUBLIC_PAGES + 1}`
  if (id <= SECTIONS.length) return `/section/${SECTIONS[id - 1]}`
  return `/articles/${SECTIONS[id % SECTIONS.length]}/story-${id}`
}

function titleOf(id: number, rnd: () => number): string {
  if (id === 0) return 'The Example Gazette'
  if (id >= PUBLIC_PAGES) return `Internal memo ${id - PUBLIC_PAGES + 1}`
  if (id <= SECTIONS.length) return `All about ${SECTIONS[id - 1]}`
  const w = () => WORDS[Math.floor(rnd() * WORDS.length)]!
  return `${w()} ${w()} and the ${w()} ${w()} (${SECTIONS[id % SECTIONS.length]} #${id})`
}

/** The link graph: tree children, the parent, and random related pages; some point into /private/. */
function buildGraph(rnd: () => number): PageSpec[] {
  const specs: PageSpec[] = []
  for (let id = 0; id < TOTAL_PAGES; id++) {
    const links = new Set<number>()
    if (id < PUBLIC_PAGES) {
      for (let c = 5 * id + 1; c <= 5 * id + 5 && c < PUBLIC_PAGES; c++) links.add(c)
      if (id > 0) links.add(Math.floor((id - 1) / 5))
      if (id % 40 === 7) links.add(PUBLIC_PAGES + Math.floor(rnd() * PRIVATE_PAGES))
    } else {
      links.add(PUBLIC_PAGES + ((id - PUBLIC_PAGES + 1) % PRIVATE_PAGES))
    }
    const want = 5 + Math.floor(rnd() * 6)
    while (links.size < want) links.add(Math.floor(rnd() * PUBLIC_PAGES))
    links.delete(id)
    specs.push({ path: pathOf(id), title: titleOf(id, rnd), links: [...links] })
  }
  return specs
}

function paragraph(rnd: () => number): string {
  const sentences: string[] = []
  const count = 3 + Math.floor(rnd() * 3)
  for (let s = 0; s < count; s++) {
    const words: string[] = []
    const len = 10 + Math.floor(rnd() * 12)
    for (let i = 0; i < len; i++) words.push(WORDS[Math.floor(rnd() * WORDS.length)]!)
    const text = words.join(' ')
    sentences.push(`${text[0]!.toUpperCase()}${text.slice(1)}.`)
  }
  return `<p>${sentences.join(' ')}</p>`
}

function render(spec: PageSpec, specs: PageSpec[], rnd: () => number, id: number): string {
  const nav = [`<a href="/">Home</a>`, ...SECTIONS.map((s) => `<a href="/section/${s}">${s[0]!.toUpperCase()}${s.slice(1)}</a>`)].join(' ')
  const paragraphs = Array.from({ length: 4 + Math.floor(rnd() * 3) }, () => paragraph(rnd)).join('\n')
  const related = spec.links.map((l) => `<li><a href="${specs[l]!.path}">${specs[l]!.title}</a></li>`).join('')
  const day = String(1 + (id % 28)).padStart(2, '0')
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${spec.title} | The Example Gazette</title>
<meta name="description" content="${spec.title}"><meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="stylesheet" href="/static/site.css"></head>
<body><header class="site-header"><a class="logo" href="/">The Example Gazette</a>
<nav class="main-nav">${nav}</nav></header>
<main><article><h1>${spec.title}</h1>
<p class="byline">By Staff Writer · <time datetime="2024-03-${day}">March ${Number(day)}, 2024</time></p>
${paragraphs}
<h2>Related reading</h2><ul class="related">${related}</ul></article>
<aside class="sidebar"><h3>Newsletter</h3><p>Get the week's stories by email.</p><form><input name="email"><button>Subscribe</button></form></aside></main>
<footer><p>© 2024 The Example Gazette · <a href="/">Home</a></p></footer></body></html>`
}

export interface BenchSite {
  url: string
  /** Mean size of a page's HTML, bytes. */
  averageBytes: number
  /** Requests served since the last reset, by path. */
  served(): { pages: number; privateHits: number; total: number }
  reset(): void
  close(): Promise<void>
}

export async function startBenchSite(seed = 20240301): Promise<BenchSite> {
  const rnd = random(seed)
  const specs = buildGraph(rnd)
  // Rendered once up front: the server's own cost per request stays tiny and equal for both crawlers.
  const bodies = new Map(specs.map((spec, id) => [spec.path, Buffer.from(render(spec, specs, rnd, id))]))
  const robots = Buffer.from('User-agent: *\nDisallow: /private/\n')
  let pages = 0
  let privateHits = 0
  let total = 0
  const server: Server = createServer((req, res) => {
    total++
    const path = (req.url ?? '/').split(/[?#]/)[0]!
    if (path === '/robots.txt') {
      res.writeHead(200, { 'content-type': 'text/plain' }).end(robots)
      return
    }
    const body = bodies.get(path)
    if (!body) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found')
      return
    }
    pages++
    if (path.startsWith('/private/')) privateHits++
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-length': body.length }).end(body)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  let bytes = 0
  for (const b of bodies.values()) bytes += b.length
  return {
    url,
    averageBytes: Math.round(bytes / bodies.size),
    served: () => ({ pages, privateHits, total }),
    reset: () => {
      pages = 0
      privateHits = 0
      total = 0
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}
