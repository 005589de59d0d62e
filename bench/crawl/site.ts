import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'

/**
 * A generated 1,000-page news site on 127.0.0.1 for the crawl benchmark, shaped like the outside
 * measurement: article pages of 15-25 KB (head with meta, Open Graph, JSON-LD and inline CSS,
 * header navigation, `<main>` with h1, byline, h2/h3 sections, paragraphs, lists, quotes and
 * figures, an "In this series" list and a related-reading aside, footer). Every page has 10-15
 * same-host links; about 20% carry utm_ parameters and 15% a fragment (canonicalisation must fold
 * them). Pages form a 4-ary tree (the "series" lists) plus seeded random related links.
 * robots.txt disallows `/members/` (30 pages), linked from every seventh page. No sitemap.
 * Deterministic: the same seed builds the same bytes.
 */

export const TOTAL_PAGES = 1000
export const MEMBER_PAGES = 30
/** Pages a crawler honouring robots.txt can read. */
export const PUBLIC_PAGES = TOTAL_PAGES - MEMBER_PAGES

const SECTIONS = ['science', 'history', 'travel', 'food', 'design', 'software', 'music', 'sport']
const NAV_SECTIONS = ['science', 'history', 'travel', 'software']
const WORDS = (
  'the of and a to in is it that was for on are with as his they be at one have this from or had by word but what some we can out ' +
  'other were all there when up use your how said an each she which do their time if will way about many then them write would ' +
  'like so these her long make thing see him two has look more day could go come did number sound no most people my over know ' +
  'water than call first who may down side been now find river garden engine market winter harbour village library theory signal ' +
  'measure season ancient modern careful gentle quiet window mountain voyage recipe lantern circuit melody stadium archive'
).split(' ')
const UTM = [
  'utm_source=newsletter&utm_medium=email&utm_campaign=weekly',
  'utm_source=twitter&utm_medium=social',
  'utm_source=homepage&utm_medium=web&utm_content=related',
]
const FRAGMENTS = ['#comments', '#section-2', '#top', '#related']

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
type Rnd = () => number
const pick = <T>(rnd: Rnd, xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!
const between = (rnd: Rnd, lo: number, hi: number) => lo + Math.floor(rnd() * (hi - lo + 1))

interface PageSpec {
  id: number
  path: string
  title: string
  /** The "In this series" list: tree children, then the parent. */
  series: number[]
  /** The related-reading aside: random pages, and one members page on every seventh page. */
  related: number[]
}

const isMember = (id: number) => id >= PUBLIC_PAGES
/** Public pages are 0..969: the home page, 8 section fronts, then articles. */
function pathOf(id: number): string {
  if (id === 0) return '/'
  if (isMember(id)) return `/members/briefing-${id - PUBLIC_PAGES + 1}`
  if (id <= SECTIONS.length) return `/section/${SECTIONS[id - 1]}`
  return `/articles/${SECTIONS[id % SECTIONS.length]}/story-${id}`
}

function words(rnd: Rnd, lo: number, hi: number): string {
  const n = between(rnd, lo, hi)
  const out: string[] = []
  for (let i = 0; i < n; i++) out.push(pick(rnd, WORDS))
  return out.join(' ')
}
const sentence = (rnd: Rnd) => {
  const w = words(rnd, 9, 22)
  return `${w[0]!.toUpperCase()}${w.slice(1)}.`
}
const capital = (s: string) => `${s[0]!.toUpperCase()}${s.slice(1)}`

function titleOf(id: number, rnd: Rnd): string {
  if (id === 0) return 'The Example Gazette'
  if (isMember(id)) return `Members' briefing ${id - PUBLIC_PAGES + 1}`
  if (id <= SECTIONS.length) return `All about ${SECTIONS[id - 1]}`
  return `${capital(words(rnd, 2, 3))} and the ${words(rnd, 1, 2)} of ${pick(rnd, WORDS)}`
}

const NAV_LINKS = 2 + NAV_SECTIONS.length // logo, home and sections, in the header
const FOOTER_LINKS = 1 // "About" (the home page's section front for science)

/** The link graph: every page has 10-15 links in all (navigation, series, related, footer). */
function buildGraph(rnd: Rnd): PageSpec[] {
  const specs: PageSpec[] = []
  for (let id = 0; id < TOTAL_PAGES; id++) {
    const series: number[] = []
    if (!isMember(id)) {
      for (let c = 4 * id + 1; c <= 4 * id + 4 && c < PUBLIC_PAGES; c++) series.push(c)
      if (id > 0) series.push(Math.floor((id - 1) / 4))
    } else {
      series.push(PUBLIC_PAGES + ((id - PUBLIC_PAGES + 1) % MEMBER_PAGES))
    }
    const total = between(rnd, 10, 15)
    const related = new Set<number>()
    if (id % 7 === 0 && !isMember(id)) related.add(PUBLIC_PAGES + Math.floor(rnd() * MEMBER_PAGES))
    const want = Math.max(2, total - NAV_LINKS - FOOTER_LINKS - series.length)
    while (related.size < want) {
      const r = Math.floor(rnd() * PUBLIC_PAGES)
      if (r !== id && !series.includes(r)) related.add(r)
    }
    specs.push({ id, path: pathOf(id), title: '', series, related: [...related] })
  }
  for (const s of specs) s.title = titleOf(s.id, rnd)
  return specs
}

/** A link as sites write them: sometimes with campaign parameters, sometimes with a fragment. */
function href(path: string, rnd: Rnd): string {
  const r = rnd()
  if (r < 0.2) return `${path}?${pick(rnd, UTM)}`
  if (r < 0.35) return `${path}${pick(rnd, FRAGMENTS)}`
  return path
}

const escapeHtml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;')

/** About 3 KB of inline CSS, as sites ship it (the same on every page). */
const CSS = (() => {
  const rules: string[] = []
  const props = [
    'margin:0 auto',
    'padding:0.75rem 1rem',
    'font:16px/1.6 Georgia,serif',
    'color:#1d1d1f',
    'border-bottom:1px solid #ddd',
    'display:flex',
    'gap:1rem',
  ]
  const selectors = [
    'body',
    '.site-header',
    '.logo',
    '.main-nav a',
    'main',
    'article h1',
    '.byline',
    'article h2',
    'article h3',
    'figure',
    'figcaption',
    'blockquote',
    '.series',
    '.related',
    'footer',
    '.newsletter',
    '.tags a',
    '.share',
    '.breadcrumb',
    '.caption',
  ]
  for (const sel of selectors) for (const media of ['', '@media (max-width:640px){']) rules.push(`${media}${sel}{${props.join(';')}}${media ? '}' : ''}`)
  return rules.join('\n')
})()

function section(rnd: Rnd, n: number): string {
  const parts: string[] = [`<h2 id="section-${n}">${capital(words(rnd, 3, 6))}</h2>`]
  const blocks = between(rnd, 3, 5)
  for (let b = 0; b < blocks; b++) {
    const kind = rnd()
    if (kind < 0.55) {
      parts.push(`<p>${Array.from({ length: between(rnd, 3, 6) }, () => sentence(rnd)).join(' ')}</p>`)
    } else if (kind < 0.7) {
      const tag = rnd() < 0.5 ? 'ul' : 'ol'
      parts.push(`<${tag}>${Array.from({ length: between(rnd, 3, 6) }, () => `<li>${capital(words(rnd, 4, 12))}</li>`).join('')}</${tag}>`)
    } else if (kind < 0.8) {
      parts.push(`<blockquote><p>${sentence(rnd)} ${sentence(rnd)}</p><cite>${capital(words(rnd, 2, 3))}</cite></blockquote>`)
    } else if (kind < 0.9) {
      const img = `/static/img/${Math.floor(rnd() * 1e6).toString(36)}.jpg`
      parts.push(
        `<figure><img src="${img}" alt="${escapeHtml(words(rnd, 3, 6))}" width="1200" height="800" loading="lazy"><figcaption>${capital(words(rnd, 6, 14))}. Photo: Staff</figcaption></figure>`,
      )
    } else {
      parts.push(`<h3>${capital(words(rnd, 2, 5))}</h3><p>${Array.from({ length: between(rnd, 2, 4) }, () => sentence(rnd)).join(' ')}</p>`)
    }
  }
  return parts.join('\n')
}

function render(spec: PageSpec, specs: PageSpec[], rnd: Rnd, targetBytes: number): string {
  const day = String(1 + (spec.id % 28)).padStart(2, '0')
  const description = escapeHtml(sentence(rnd))
  const title = escapeHtml(spec.title)
  const jsonLd = JSON.stringify({
    '@context': 'https://schema.org',
    '@type': 'NewsArticle',
    headline: spec.title,
    description,
    datePublished: `2024-03-${day}T08:00:00Z`,
    dateModified: `2024-03-${day}T12:30:00Z`,
    author: [{ '@type': 'Person', name: 'Staff Writer' }],
    publisher: { '@type': 'Organization', name: 'The Example Gazette', logo: { '@type': 'ImageObject', url: '/static/logo.png' } },
    image: ['/static/img/lead.jpg'],
    mainEntityOfPage: spec.path,
  })
  const head = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${title} | The Example Gazette</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="description" content="${description}">
<meta property="og:type" content="article"><meta property="og:title" content="${title}"><meta property="og:description" content="${description}">
<meta property="og:site_name" content="The Example Gazette"><meta property="og:image" content="/static/img/lead.jpg">
<meta name="twitter:card" content="summary_large_image"><meta property="article:published_time" content="2024-03-${day}T08:00:00Z">
<link rel="canonical" href="${spec.path}"><link rel="icon" href="/favicon.ico">
<script type="application/ld+json">${jsonLd}</script>
<style>${CSS}</style></head>`
  const nav = [`<a href="${href('/', rnd)}">Home</a>`, ...NAV_SECTIONS.map((s) => `<a href="${href(`/section/${s}`, rnd)}">${capital(s)}</a>`)].join(' ')
  const header = `<body><header class="site-header"><a class="logo" href="/">The Example Gazette</a><nav class="main-nav">${nav}</nav></header>`
  const series = spec.series.map((l) => `<li><a href="${href(specs[l]!.path, rnd)}">${escapeHtml(specs[l]!.title)}</a></li>`).join('')
  const related = spec.related.map((l) => `<li><a href="${href(specs[l]!.path, rnd)}">${escapeHtml(specs[l]!.title)}</a></li>`).join('')
  const top = `<main><article><h1>${title}</h1>
<p class="byline">By <span class="author">Staff Writer</span> · <time datetime="2024-03-${day}T08:00:00Z">March ${Number(day)}, 2024</time></p>
<p class="lede"><strong>${sentence(rnd)}</strong> ${sentence(rnd)}</p>`
  const tail = `<section class="series"><h2>In this series</h2><ol>${series}</ol></section></article>
<aside class="related"><h2>Related reading</h2><ul>${related}</ul><div class="newsletter"><h3>Newsletter</h3><p>Get the week's stories by email.</p><form><input name="email" type="email"><button>Subscribe</button></form></div></aside></main>
<footer><p>© 2024 The Example Gazette · <a href="${href('/section/science', rnd)}">About</a> · Made with care</p></footer></body></html>`
  // Sections until the page reaches its drawn size: 15-25 KB like the outside measurement's pages.
  const body: string[] = []
  let size = head.length + header.length + top.length + tail.length
  for (let n = 1; size < targetBytes; n++) {
    const s = section(rnd, n)
    body.push(s)
    size += s.length + 1
  }
  return `${head}\n${header}\n${top}\n${body.join('\n')}\n${tail}`
}

/** Paths of the pages robots.txt allows. */
export const publicPaths = () => Array.from({ length: PUBLIC_PAGES }, (_, id) => pathOf(id))

export interface BenchSite {
  url: string
  /** Mean size of a page's HTML, bytes. */
  averageBytes: number
  /** Mean count of `<a href>` per page. */
  averageLinks: number
  /** Requests served since the last reset. */
  served(): { pages: number; memberHits: number; total: number }
  reset(): void
  close(): Promise<void>
}

export async function startBenchSite(opts: { seed?: number; latencyMs?: number } = {}): Promise<BenchSite> {
  const rnd = random(opts.seed ?? 20240301)
  const latencyMs = opts.latencyMs ?? 0
  const specs = buildGraph(rnd)
  // Rendered once up front: the server's own cost per request stays tiny and equal for both crawlers.
  const bodies = new Map(specs.map((spec) => [spec.path, Buffer.from(render(spec, specs, rnd, between(rnd, 15_000, 25_000)))]))
  const robots = Buffer.from('User-agent: *\nDisallow: /members/\n')
  let pages = 0
  let memberHits = 0
  let total = 0
  const server: Server = createServer((req, res) => {
    total++
    const path = (req.url ?? '/').split(/[?#]/)[0]!
    const answer = () => {
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
      if (path.startsWith('/members/')) memberHits++
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-length': body.length }).end(body)
    }
    // Every response waits the same time, as a distant server would.
    if (latencyMs > 0) setTimeout(answer, latencyMs)
    else answer()
  })
  server.keepAliveTimeout = 30_000
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  let bytes = 0
  let links = 0
  for (const b of bodies.values()) {
    bytes += b.length
    links += b.toString('latin1').match(/<a\s[^>]*href=/g)?.length ?? 0
  }
  return {
    url,
    averageBytes: Math.round(bytes / bodies.size),
    averageLinks: links / bodies.size,
    served: () => ({ pages, memberHits, total }),
    reset: () => {
      pages = 0
      memberHits = 0
      total = 0
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}
