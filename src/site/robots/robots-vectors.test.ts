import { describe, expect, test } from 'vitest'
import { readFixture } from '../../../test/support/fixtures.ts'
import { isValidProductToken, parseRobots } from './robots.parse.ts'
import { decodeRobotsBody, tokenizeRobots } from './robots-lines.parse.ts'
import { canonicalPercentEncoding } from './robots-path.encode.ts'

/**
 * The conformance vectors in fixtures/corpora/robots (DEV split). RFC 9309 vectors must pass;
 * Google-only and other libraries' vectors are run too, and every difference is listed below with
 * its reason, so a change in behaviour shows up as a failing test.
 */
interface Vector {
  id: string
  kind: string
  semantics: string
  google_specific?: boolean
  robots_txt?: string
  robots_txt_base64?: string
  robots_url?: string | null
  user_agent?: string | null
  url?: string
  allowed?: boolean | null
  /** RFC 9309's answer where the library's differs; 'unspecified' when the RFC does not decide. */
  rfc9309_expected?: boolean | string
  expected?: unknown
  pattern?: string
}

const vectors: Vector[] = JSON.parse(readFixture('corpora/robots/robots-dev.json').toString('utf8'))
const GOOGLE = 'google-robotstxt (RFC 9309 reference)'
const isRfc = (v: Vector) => v.semantics === GOOGLE && v.google_specific === false

// Where vectors are relative or invalid on purpose, rules still need some robots.txt URL.
const robotsUrlOf = (v: Vector) => (v.robots_url && URL.canParse(v.robots_url) ? v.robots_url : 'http://robots.invalid/robots.txt')
const textOf = (v: Vector) => (v.robots_txt_base64 ? decodeRobotsBody(Buffer.from(v.robots_txt_base64, 'base64')) : (v.robots_txt ?? ''))

/** What our code answers for a vector, in the vector's own terms; `unsupported` when we have no such feature. */
function answer(v: Vector): unknown {
  const rules = () => parseRobots(textOf(v), robotsUrlOf(v), v.user_agent ?? '')
  switch (v.kind) {
    case 'can_fetch':
      return rules().isAllowed(v.url ?? '')
    case 'user_agent_is_valid_product_token':
      return isValidProductToken(v.user_agent ?? '')
    case 'pattern_escaping':
      return canonicalPercentEncoding(v.pattern ?? '')
    case 'parse_directive_counts': {
      const { stats } = tokenizeRobots(textOf(v))
      return { known_directives: stats.known, unknown_directives: stats.unknown }
    }
    case 'line_classification':
      return classifyLines(textOf(v))
    case 'crawl_delay': {
      const ms = rules().crawlDelayMs
      return ms === null ? null : ms / 1000
    }
    case 'sitemaps':
      return rules().sitemaps
    default:
      return 'unsupported'
  }
}

function expectedOf(v: Vector): unknown {
  if (v.kind === 'can_fetch') return typeof v.rfc9309_expected === 'boolean' ? v.rfc9309_expected : v.allowed
  if (v.kind === 'line_classification') return summarise(v.expected as GoogleReport)
  return v.expected
}

interface GoogleReport {
  valid_directives: number
  lines_reported: number
  lines: { line_num: number; tag: string; is_typo: boolean }[]
}

// Google's reporting parser names tags in CamelCase; compare line number, tag and typo flag.
const TAGS: Record<string, string> = { 'user-agent': 'UserAgent', allow: 'Allow', disallow: 'Disallow', sitemap: 'Sitemap', unused: 'Unused' }
function classifyLines(text: string) {
  const { directives, stats } = tokenizeRobots(text)
  const byLine = new Map(directives.map((d) => [d.line, d]))
  const lines = Array.from({ length: stats.lines }, (_, i) => {
    const d = byLine.get(i + 1)
    return `${i + 1}:${(d && TAGS[d.key]) ?? 'Unknown'}:${d?.typo ?? false}`
  })
  return { valid: directives.filter((d) => TAGS[d.key] && d.key !== 'unused').length, lines }
}
const summarise = (r: GoogleReport) => ({ valid: r.valid_directives, lines: r.lines.map((l) => `${l.line_num}:${l.tag}:${l.is_typo}`) })

/**
 * Every vector we answer differently, and why. Keys are vector ids; a vector missing here must pass.
 */
const DIFFERENCES: Record<string, string> = {}

function run(select: (v: Vector) => boolean) {
  const chosen = vectors.filter(select)
  const failed = chosen.filter((v) => !isDeepEqual(answer(v), expectedOf(v)))
  return { total: chosen.length, passed: chosen.length - failed.length, failed }
}
const isDeepEqual = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b)

describe('RFC 9309 vectors (google-robotstxt, not Google-specific)', () => {
  test.each(vectors.filter(isRfc).map((v) => [v.id, v] as const))('%s', (id, v) => {
    const got = answer(v)
    if (DIFFERENCES[id]) expect(got, DIFFERENCES[id]).not.toEqual(expectedOf(v))
    else expect(got).toEqual(expectedOf(v))
  })

  test('pass count', () => {
    const r = run(isRfc)
    console.info(`robots RFC 9309 vectors: ${r.passed}/${r.total} pass; differing: ${r.failed.map((v) => v.id).join(', ')}`)
    expect(r.failed.map((v) => v.id)).toEqual(Object.keys(DIFFERENCES).filter((id) => vectors.some((v) => v.id === id && isRfc(v))))
  })
})

const sameOrigin = (a: string, b: string) => URL.canParse(a) && URL.canParse(b) && new URL(a).origin === new URL(b).origin

/** Why we answer other libraries' vectors differently; a failing vector must match one of these. */
const OTHER_DIFFERENCES: [reason: string, applies: (v: Vector) => boolean][] = [
  [
    'rules are per origin (RobotsCache picks them) and isAllowed reads only path and query, so it answers where robots-parser returns undefined for another origin or an unusable robots.txt URL',
    (v) => v.kind === 'can_fetch' && (v.allowed === null || (v.robots_url != null && !sameOrigin(v.url ?? '', v.robots_url))),
  ],
  [
    'a relative Sitemap needs a robots.txt URL to resolve against; robots-parser returns it relative',
    (v) => v.kind === 'sitemaps' && !URL.canParse(v.robots_url ?? ''),
  ],
  [
    'a lone surrogate becomes U+FFFD (%EF%BF%BD) on both sides, as WHATWG URL does, so two of them match; robots-parser leaves such a pattern unencoded',
    (v) => /[\ud800-\udfff]/.test((v.robots_txt ?? '') + (v.url ?? '')),
  ],
  ['Host (a Yandex extension) is not read: nothing in Trawl uses a preferred host', (v) => v.kind === 'preferred_host'],
  ["robots-parser's explicit mode (a group naming the agent, ignoring *) is not offered", (v) => v.kind === 'explicitly_disallowed'],
  ['Request-rate is not read: it is not in RFC 9309 and crawls do not honour it (Crawl-delay they do)', (v) => v.kind === 'request_rate'],
]

describe.each([
  ['Google-only extensions', (v: Vector) => v.semantics === GOOGLE && v.google_specific === true],
  ['robots-parser (npm)', (v: Vector) => v.semantics.startsWith('robots-parser')],
  ['python urllib.robotparser (RFC answer where the vector gives one)', (v: Vector) => v.semantics.startsWith('python')],
])('%s vectors', (name, select) => {
  test('every difference is a documented one', () => {
    const r = run(select)
    const undocumented = r.failed.filter((v) => !OTHER_DIFFERENCES.some(([, applies]) => applies(v)))
    const reasons = new Map<string, number>()
    for (const v of r.failed) {
      const reason = OTHER_DIFFERENCES.find(([, applies]) => applies(v))?.[0] ?? 'UNDOCUMENTED'
      reasons.set(reason, (reasons.get(reason) ?? 0) + 1)
    }
    console.info(`robots ${name}: ${r.passed}/${r.total} pass${[...reasons].map(([why, n]) => `\n  ${n} differ on purpose: ${why}`).join('')}`)
    expect(undocumented.map((v) => v.id)).toEqual([])
  })
})
