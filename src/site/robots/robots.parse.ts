import { type RobotsLine, tokenizeRobots } from './robots-lines.parse.ts'
import { canonicalPercentEncoding } from './robots-path.encode.ts'
import { byPrecedence, compileRule, isPathAllowed, type Rule } from './robots-rule.match.ts'

/**
 * RFC 9309 rules for one origin, seen by one crawler.
 *
 * STACK.md proposed robots-parser 3 plus a wrapper. We measured it against the shared vectors and
 * a hostile file and ended up replacing every part of it, so it is not a dependency:
 *  - grouping: it ends a group's user-agent run at any non-user-agent line (Crawl-delay, Sitemap,
 *    unknown lines); RFC 9309 and Google end it only at the first allow/disallow rule;
 *  - user-agent lines: it keys groups by the whole value (`foo bar`); RFC 9309 matches the product
 *    token, the leading run of `[A-Za-z_-]` (so `FooBot/1.0` and `foo bar` name FooBot and foo);
 *  - a group naming us with no rules at all must still replace `*`; it falls back to `*`;
 *  - percent-encoding: it encodes patterns with encodeURI but not the URL side, and never decodes
 *    unreserved escapes (`/%7Ejoe` vs `/~joe`), see robots-path.encode.ts;
 *  - matching: correct, but quadratic in JavaScript; a hostile file blocked the process for 1.8 s
 *    per URL (robots-rule.match.ts);
 *  - no BOM, size or line limits, no `/robots.txt` exemption, Crawl-delay ends groups.
 * What was left (a map of agents to rule lists) was not worth a dependency.
 *
 * Where Google's parser goes beyond RFC 9309, and what we follow:
 *  - misspelled keys (`useragent`, `disalow`, `site-map`) and a missing colon: followed (polite);
 *  - lines cut at 16,663 bytes: followed (robots-lines.parse.ts says why);
 *  - `Allow: /index.html` also allowing `/`: not followed, RFC 9309 has no such rule;
 *  - user-agent matching: both use the product token case-insensitively; Google also keeps a line
 *    like `User-agent: Foo Bar` as `Foo`, which we do too, since the RFC's own vectors expect it;
 *  - Crawl-delay and `noindex` are ignored by Google: we honour Crawl-delay (docs/crawl.md) and ignore
 *    noindex (about indexing, never standard, dropped by Google in 2019);
 *  - 429 treated like 5xx: followed, in robots.load.ts;
 *  - the URL's own encoding: Google's matcher encodes the pattern but expects callers to have
 *    encoded the URL, so a raw `/ツ` does not match `Allow: /%E3%83%84` there. RFC 9309 §2.2.2
 *    says both sides are encoded before comparison; we follow the RFC and it matches here.
 */
export interface RobotsRules {
  /** May our agent fetch this URL? Only its path and query are looked at: rules are per origin. */
  isAllowed(url: string): boolean
  /** Crawl-delay of the group that applies to us (ours, else `*`), in ms; null when none is set. */
  readonly crawlDelayMs: number | null
  /** Sitemap URLs named anywhere in the file, absolute, http(s) only, de-duplicated. */
  readonly sitemaps: string[]
}

/** RFC 9309 §2.2.1: a product token is a non-empty run of letters, `_` and `-`. */
export const isValidProductToken = (token: string) => /^[A-Za-z_-]+$/.test(token)

/**
 * The token a user-agent value names: `*`, the leading product token, or '' for none. Used for
 * both a file's user-agent lines and our own user agent (`Trawl/0.1 (...)` is `Trawl`).
 */
export function productTokenOf(value: string): string {
  const v = value.trim()
  if (/^\*(\s|$)/.test(v)) return '*'
  return /^[A-Za-z_-]+/.exec(v)?.[0] ?? ''
}

interface Group {
  agents: Set<string>
  rules: Rule[]
}

/**
 * Groups as RFC 9309 §2.1 defines them, and Google's parser reads them: a run of user-agent lines,
 * then rules; only a user-agent line after a rule starts the next group. Other lines (Sitemap,
 * Crawl-delay, unknown) never end a run, so `User-agent: a`, `Crawl-delay: 5`, `User-agent: b`,
 * `Disallow: /x` is one group for a and b.
 *
 * Crawl-delay is outside the RFC, and files are written as if it ended a group (`User-agent: a`,
 * `Crawl-delay: 1`, `User-agent: b`, `Crawl-delay: 12`); robots-parser reads them so. A delay is
 * therefore given to the user-agent lines just above it, not to the whole group.
 */
function groupDirectives(directives: RobotsLine[]): { groups: Group[]; delaysMs: Map<string, number> } {
  const groups: Group[] = []
  // Several delays for one agent: the largest, the politest reading of a conflicting file.
  const delaysMs = new Map<string, number>()
  let current: Group | undefined
  let seenRule = false
  let delayAgents: string[] = []
  let previous: RobotsLine['key'] | undefined
  for (const d of directives) {
    if (d.key === 'user-agent') {
      if (!current || seenRule) {
        current = { agents: new Set(), rules: [] }
        groups.push(current)
        seenRule = false
      }
      if (previous !== 'user-agent') delayAgents = []
      const token = productTokenOf(d.value).toLowerCase()
      if (token) {
        current.agents.add(token)
        delayAgents.push(token)
      }
    } else if (d.key === 'allow' || d.key === 'disallow') {
      // Rules before the first user-agent line belong to no group (RFC 9309 §2.1) and are dropped.
      if (!current) continue
      seenRule = true
      // An empty Disallow allows everything and an empty Allow changes nothing: neither is a rule.
      if (d.value) current.rules.push(compileRule(canonicalPercentEncoding(d.value), d.key === 'allow'))
    } else if (d.key === 'crawl-delay') {
      const delay = parseCrawlDelayMs(d.value)
      if (delay !== null) for (const agent of delayAgents) delaysMs.set(agent, Math.max(delay, delaysMs.get(agent) ?? 0))
    }
    previous = d.key
  }
  return { groups, delaysMs }
}

/** Seconds, possibly fractional (`0.5`, `10`); anything else (`10a`, `1.2.1`, `-1`) is ignored. */
function parseCrawlDelayMs(value: string): number | null {
  return /^(\d+(\.\d*)?|\.\d+)$/.test(value) ? Math.round(Number(value) * 1000) : null
}

// URLs are parsed against this so a bare path (`/a?b`) works too; only path and query are used.
const PATH_BASE = 'http://robots.invalid/'

/** The path and query a rule is matched against (RFC 9309 §2.2.2), canonically encoded, or null. */
export function matchTarget(url: string): { path: string; pathname: string } | null {
  let parsed: URL
  try {
    parsed = new URL(url, PATH_BASE)
  } catch {
    return null
  }
  // A URL given with raw non-ASCII characters is matched as given, as Google's reference matcher
  // does (its ID_Encoding vectors are in the RFC set): the caller is expected to percent-encode.
  // Trawl's own callers pass canonical (encoded) URLs, so for crawls this never applies.
  const raw = rawPathAndQuery(url)
  if (raw && /[^\p{ASCII}]/u.test(raw)) return { path: canonicalPercentEncoding(raw, { keepNonAscii: true }), pathname: parsed.pathname }
  return { path: canonicalPercentEncoding(parsed.pathname + parsed.search), pathname: parsed.pathname }
}

/** The path and query exactly as written in `url` (fragment dropped), or null. */
function rawPathAndQuery(url: string): string | null {
  const rest = url.replace(/^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i, '').split('#')[0]
  return rest?.startsWith('/') ? rest : null
}

function resolveSitemaps(directives: RobotsLine[], robotsUrl: string): string[] {
  const seen = new Set<string>()
  for (const d of directives) {
    if (d.key !== 'sitemap' || !d.value) continue
    try {
      const url = new URL(d.value, robotsUrl)
      if (url.protocol === 'http:' || url.protocol === 'https:') seen.add(url.href)
    } catch {
      // A relative sitemap with no usable robots.txt URL, or junk: nothing to follow.
    }
  }
  return [...seen]
}

/**
 * Parses a robots.txt for `userAgent` (its product token is used, compared case-insensitively).
 * `robotsUrl` is where the file was read from; relative Sitemap lines resolve against it.
 */
export function parseRobots(text: string, robotsUrl: string, userAgent = 'Trawl'): RobotsRules {
  const { directives } = tokenizeRobots(text)
  const { groups, delaysMs } = groupDirectives(directives)
  // An empty or invalid token matches no group, so only `*` applies.
  const token = productTokenOf(userAgent).toLowerCase() || '*'
  // RFC 9309 §2.2.1: every group naming us, merged; else every `*` group; else no rules at all.
  // A group naming us replaces `*` even when it has no rules, and the same holds for Crawl-delay.
  const own = groups.some((g) => g.agents.has(token))
  const rules: Rule[] = groups
    .filter((g) => g.agents.has(own ? token : '*'))
    .flatMap((g) => g.rules)
    .sort(byPrecedence)
  return {
    isAllowed(url: string): boolean {
      const target = matchTarget(url)
      // Not a URL we could ever fetch; saying no keeps a caller's bug from becoming a request.
      if (!target) return false
      // RFC 9309 §2.2.2: /robots.txt itself is always allowed.
      if (target.pathname === '/robots.txt') return true
      return isPathAllowed(rules, target.path)
    },
    crawlDelayMs: delaysMs.get(own ? token : '*') ?? null,
    sitemaps: resolveSitemaps(directives, robotsUrl),
  }
}

/** Rules for a robots.txt that is unavailable (4xx): everything may be crawled (RFC 9309 §2.3.1.3). */
export const allowAllRules = (): RobotsRules => ({ isAllowed: () => true, crawlDelayMs: null, sitemaps: [] })

/** Rules for an unreachable robots.txt (5xx, network error): nothing but /robots.txt (§2.3.1.4). */
export const disallowAllRules = (): RobotsRules => ({
  isAllowed: (url: string) => matchTarget(url)?.pathname === '/robots.txt',
  crawlDelayMs: null,
  sitemaps: [],
})
