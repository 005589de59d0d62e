/**
 * robots.txt as a list of directive lines: encoding, size limits, comments, key/value split and the
 * accepted spellings. Grouping and matching are in robots.parse.ts.
 *
 * We hand-write this layer instead of using robots-parser's because it gets several things wrong
 * for RFC 9309 (see robots.parse.ts); every Google-only leniency kept here is marked as such.
 */

/** RFC 9309 §2.5: a parser must read at least 500 KiB; what lies past it is ignored. */
export const ROBOTS_PARSE_LIMIT_BYTES = 500 * 1024

/**
 * Google's parser cuts each line to its first 16,663 bytes (a 2083 × 8 byte buffer less the NUL).
 * RFC 9309 sets no per-line limit; we cut rather than drop the line as Google does, because a cut
 * Disallow still disallows (the safer direction), and a line this long is junk or an attack on the
 * matcher, whose cost grows with pattern length.
 */
export const ROBOTS_MAX_LINE_BYTES = 16_663

export type DirectiveKey = 'user-agent' | 'allow' | 'disallow' | 'sitemap' | 'crawl-delay' | 'unused' | 'unknown'

export interface RobotsLine {
  /** 1-based. */
  line: number
  key: DirectiveKey
  /** The key as written, lower-cased; for `unused` and `unknown` it names the directive. */
  name: string
  /** Trimmed, comment removed. */
  value: string
  /** An accepted misspelling such as `useragent` or `disalow` (Google leniency we follow). */
  typo: boolean
  /** `User-agent FooBot`: key and value split by white space (Google leniency we follow). */
  missingColon: boolean
}

export interface RobotsLineStats {
  lines: number
  known: number
  unknown: number
}

// Google accepts these misspellings; we do too, since honouring what the site owner meant is the
// polite reading and none of them can be mistaken for another directive.
const SPELLINGS: Record<string, { key: DirectiveKey; typo: boolean }> = {
  'user-agent': { key: 'user-agent', typo: false },
  useragent: { key: 'user-agent', typo: true },
  'user agent': { key: 'user-agent', typo: true },
  allow: { key: 'allow', typo: false },
  disallow: { key: 'disallow', typo: false },
  dissallow: { key: 'disallow', typo: true },
  dissalow: { key: 'disallow', typo: true },
  disalow: { key: 'disallow', typo: true },
  diasllow: { key: 'disallow', typo: true },
  disallaw: { key: 'disallow', typo: true },
  sitemap: { key: 'sitemap', typo: false },
  'site-map': { key: 'sitemap', typo: true },
  // Not in RFC 9309 (Google ignores it); crawls honour it.
  'crawl-delay': { key: 'crawl-delay', typo: false },
  // Recognised so reports can say "not used": noindex in robots.txt was never standard and Google
  // dropped it in 2019; it is about indexing, which we do not do, so it changes nothing here.
  noindex: { key: 'unused', typo: false },
  noarchive: { key: 'unused', typo: false },
  nofollow: { key: 'unused', typo: false },
}

const UTF8_BOM = [0xef, 0xbb, 0xbf]

/**
 * robots.txt is UTF-8 by RFC 9309 whatever the Content-Type says, so the bytes are decoded here,
 * not by the page reader's charset sniffing. A leading BOM is skipped even when cut short (Google
 * does the same: a partial BOM is an encoding accident, not content). Bytes past the parse limit
 * are dropped together with the line they cut.
 */
export function decodeRobotsBody(bytes: Uint8Array): string {
  let start = 0
  while (start < UTF8_BOM.length && bytes[start] === UTF8_BOM[start]) start++
  let end = bytes.length
  if (end - start > ROBOTS_PARSE_LIMIT_BYTES) {
    end = start + ROBOTS_PARSE_LIMIT_BYTES
    const lastBreak = Math.max(bytes.lastIndexOf(0x0a, end - 1), bytes.lastIndexOf(0x0d, end - 1))
    end = lastBreak >= start ? lastBreak + 1 : start
  }
  return new TextDecoder('utf-8', { ignoreBOM: true }).decode(bytes.subarray(start, end))
}

/** Same limit for text handed over as a string; cut at the last line break before it. */
function withinParseLimit(text: string): string {
  if (text.length <= ROBOTS_PARSE_LIMIT_BYTES / 3 || Buffer.byteLength(text) <= ROBOTS_PARSE_LIMIT_BYTES) return text
  const cut = Buffer.from(text).subarray(0, ROBOTS_PARSE_LIMIT_BYTES).toString('utf8')
  const lastBreak = Math.max(cut.lastIndexOf('\n'), cut.lastIndexOf('\r'))
  return lastBreak >= 0 ? cut.slice(0, lastBreak + 1) : ''
}

function cutLine(line: string): string {
  if (line.length <= ROBOTS_MAX_LINE_BYTES / 3 || Buffer.byteLength(line) <= ROBOTS_MAX_LINE_BYTES) return line
  return Buffer.from(line).subarray(0, ROBOTS_MAX_LINE_BYTES).toString('utf8')
}

// RFC 9309's white space is space and tab only. String.prototype.trim would also eat a U+FEFF,
// and a BOM in the middle of the file must keep its line from parsing.
const trimWs = (s: string) => s.replace(/^[ \t]+|[ \t]+$/g, '')

/** Splits one line into key and value, or null for blank lines, comments and free text. */
function splitDirective(content: string): { name: string; value: string; missingColon: boolean } | null {
  const colon = content.indexOf(':')
  if (colon >= 0) {
    const name = trimWs(content.slice(0, colon)).toLowerCase()
    return name ? { name, value: trimWs(content.slice(colon + 1)), missingColon: false } : null
  }
  // Google-only leniency we follow: `Disallow /x` (exactly two words, no colon) is a directive.
  const words = trimWs(content).split(/[ \t]+/)
  if (words.length !== 2) return null
  const name = words[0]!.toLowerCase()
  return SPELLINGS[name] ? { name, value: words[1]!, missingColon: true } : null
}

/**
 * Every directive line of a robots.txt, in order. Accepts LF, CRLF and CR line ends and a leading
 * BOM (as U+FEFF, or as the U+FFFD a damaged BOM decodes to).
 */
export function tokenizeRobots(text: string): { directives: RobotsLine[]; stats: RobotsLineStats } {
  const source = withinParseLimit(text.replace(/^[\uFEFF\uFFFD]/, ''))
  const lines = source.split(/\r\n|\r|\n/)
  const directives: RobotsLine[] = []
  let unknown = 0
  for (let i = 0; i < lines.length; i++) {
    const line = cutLine(lines[i]!)
    const hash = line.indexOf('#')
    const split = splitDirective(hash >= 0 ? line.slice(0, hash) : line)
    if (!split) continue
    const spelling = SPELLINGS[split.name]
    if (!spelling || spelling.key === 'unused') unknown++
    directives.push({
      line: i + 1,
      key: spelling?.key ?? 'unknown',
      name: split.name,
      value: split.value,
      typo: spelling?.typo ?? false,
      missingColon: split.missingColon,
    })
  }
  return { directives, stats: { lines: lines.length, known: directives.length - unknown, unknown } }
}
