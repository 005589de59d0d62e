/**
 * `<meta http-equiv="refresh" content="0; url=…">`: the redirect of pages that cannot send a 3xx
 * (static hosts, "this page has moved" stubs). A browser follows it, so a reader must too, or it
 * returns (and bills) the stub. Only a prompt refresh to another URL counts: a page that reloads
 * itself every few minutes is content, not a redirect.
 */

/** Longest delay still read as a redirect, seconds (browsers wait it out; stubs use 0 to 5). */
const MAX_DELAY_S = 5
/** Where the tag must appear: it belongs in <head>, near the top of the document. */
const HEAD_CHARS = 16_384
const TAG = /<meta\b[^>]*?http-equiv\s*=\s*["']?refresh["']?[^>]*>/i
const CONTENT = /\bcontent\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+))/i
// "5; url=/next", "0;URL='/next'", "0, /next" (comma and a bare URL are both in the wild).
const VALUE = /^\s*(\d+)(?:\.\d*)?\s*(?:[;,]\s*(?:url\s*=\s*)?["']?([^"']*)["']?)?\s*$/i

/** The absolute http(s) URL the page redirects to, or null when it does not (promptly, elsewhere). */
export function metaRefreshTarget(html: string, pageUrl: string): string | null {
  const head = html.slice(0, HEAD_CHARS)
  const tag = TAG.exec(head)?.[0]
  if (!tag) return null
  const content = CONTENT.exec(tag)
  const value = VALUE.exec(decodeEntities(content?.[1] ?? content?.[2] ?? content?.[3] ?? ''))
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

function decodeEntities(value: string): string {
  return value
    .replace(/&amp;/gi, '&')
    .replace(/&quot;/gi, '"')
    .replace(/&#39;|&apos;/gi, "'")
}
