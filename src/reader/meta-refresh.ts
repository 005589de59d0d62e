import { Parser } from 'htmlparser2'

/**
 * `<meta http-equiv="refresh" content="0; url=…">`: the redirect of pages that cannot send a 3xx
 * (static hosts, "this page has moved" stubs). A browser follows it, so a reader must too, or it
 * returns (and bills) the stub. Only what a browser would follow counts (docs/ARCHITECTURE.md,
 * "Page reading"):
 *
 * - a real `<meta>` element of the parsed document, in <head> or <body>: not text inside a
 *   comment (every CNN article carries one in an IE conditional comment,
 *   `<!--[if lte IE 9]><meta http-equiv="refresh" content="1;url=/…/unsupp.html"><![endif]-->`),
 *   a <script>, <style>, <textarea> or <title>, and not inside <noscript> (a browser running
 *   scripts, as a reader is taken to be, never sees it), <template> or SVG/MathML;
 * - the first such element whose content parses (the one a browser acts on; later ones are ignored);
 * - a prompt one: at most MAX_DELAY_S seconds, to another http(s) URL. A page that reloads
 *   itself, or moves on after a long wait, is content, not a redirect;
 * - within the first SCAN_CHARS of the page. A browser honours one anywhere, but the redirect
 *   stubs this is for are small, and the parse runs on the main thread (only on a page with a
 *   candidate, only up to the last one: 10-20 ms a megabyte of dense markup).
 */

/** Longest delay still read as a redirect, seconds (browsers wait it out; stubs use 0 to 5). */
export const MAX_DELAY_S = 5
/** How far into the page a refresh is looked for, characters. */
const SCAN_CHARS = 512 * 1024
/** Cheap look for a candidate before any parse: most pages have none, and are not parsed here. */
const CANDIDATE = /<meta\b[^>]*?http-equiv\s*=\s*["']?\s*refresh/gi
/** Room after the last candidate for the rest of its tag: the parse stops there. */
const TAG_ROOM = 4096
// "5; url=/next", "0;URL='/next'", "0, /next" (comma and a bare URL are both in the wild).
const VALUE = /^\s*(\d+)(?:\.\d*)?\s*(?:[;,]\s*(?:url\s*=\s*)?["']?([^"']*)["']?)?\s*$/i
/** Elements whose content a browser running scripts does not treat as the document's own markup. */
const HIDING = new Set(['noscript', 'template', 'svg', 'math'])

/** The absolute http(s) URL the page redirects to, or null when it does not (promptly, elsewhere). */
export function metaRefreshTarget(html: string, pageUrl: string): string | null {
  const scanned = html.length > SCAN_CHARS ? html.slice(0, SCAN_CHARS) : html
  let last = -1
  CANDIDATE.lastIndex = 0
  for (let m = CANDIDATE.exec(scanned); m; m = CANDIDATE.exec(scanned)) last = m.index
  if (last < 0) return null
  // Only up to the last candidate's tag: what comes after cannot change what was before it.
  const value = firstRefresh(html.slice(0, Math.min(last + TAG_ROOM, SCAN_CHARS)))
  if (!value || Number(value[1]) > MAX_DELAY_S || !value[2]?.trim()) return null
  let target: URL
  try {
    target = new URL(value[2].trim(), pageUrl)
  } catch {
    return null
  }
  if (target.protocol !== 'http:' && target.protocol !== 'https:') return null
  target.hash = ''
  const here = new URL(pageUrl)
  here.hash = ''
  return target.href === here.href ? null : target.href
}

/** The parsed content of the document's first refresh <meta> element that a browser would act on. */
function firstRefresh(html: string): RegExpExecArray | null {
  let hidden = 0
  let found: RegExpExecArray | null = null
  const parser = new Parser(
    {
      onopentag(name, attribs) {
        if (HIDING.has(name)) hidden++
        else if (name === 'meta' && hidden === 0 && !found && attribs['http-equiv']?.trim().toLowerCase() === 'refresh') {
          found = VALUE.exec(attribs.content ?? '')
        }
      },
      onclosetag(name) {
        if (HIDING.has(name) && hidden > 0) hidden--
      },
    },
    { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true },
  )
  parser.write(html)
  parser.end()
  return found
}
