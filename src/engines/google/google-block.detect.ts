/**
 * Recognises Google's refusals: the CAPTCHA ("sorry") page, HTTP 429, the consent wall, the
 * JavaScript page (the `/httpservice/retry/enablejs` page a client that runs no scripts gets
 * instead of results) and the outdated-browser page. Each has its own short reason, so a
 * JavaScript page is never reported as a CAPTCHA or as rate limiting.
 */

export interface GoogleResponse {
  status: number
  /** Final URL after redirects (for a redirect not followed: its target). */
  url: string
  body: string
}

export interface GoogleBlock {
  code: 'upstream_blocked'
  reason: string
}

/** The reasons, as `meta.route` and the 503 message show them. */
export const GOOGLE_BLOCK = {
  captcha: 'CAPTCHA page',
  captcha503: 'CAPTCHA page (HTTP 503)',
  tooMany: 'HTTP 429 (too many requests)',
  consent: 'consent page',
  javascript: 'JavaScript page (results need scripts)',
  oldBrowser: 'outdated-browser page',
} as const

const blocked = (reason: string): GoogleBlock => ({ code: 'upstream_blocked', reason })

/** A block verdict for a fetched Google page (or a redirect's target), or null when it may hold results. */
export function detectGoogleBlock(res: GoogleResponse): GoogleBlock | null {
  let host = ''
  let path = ''
  try {
    const u = new URL(res.url)
    host = u.hostname.toLowerCase()
    path = u.pathname
  } catch {
    // An unparsable URL says nothing; the status and body still do.
  }
  if (host === 'sorry.google.com' || path.startsWith('/sorry')) return blocked(GOOGLE_BLOCK.captcha)
  if (host.startsWith('consent.google.')) return blocked(GOOGLE_BLOCK.consent)
  if (path.startsWith('/httpservice/retry/enablejs')) return blocked(GOOGLE_BLOCK.javascript)
  if (res.status === 429) return blocked(GOOGLE_BLOCK.tooMany)
  if (res.status === 503 && /recaptcha/i.test(res.body)) return blocked(GOOGLE_BLOCK.captcha503)
  const reason = detectGoogleBlockInHtml(res.body)
  return reason ? blocked(reason) : null
}

/** Why an HTML body is a refusal rather than results, or undefined. */
export function detectGoogleBlockInHtml(body: string): string | undefined {
  if (!body) return undefined
  // A page with result markup is no CAPTCHA page, and the markup comes early (a tenth of a
  // millisecond to find): only small documents (block pages are) and pages without results are
  // searched for the form. Searching all of a 1-2 MB result page for it cost most of a millisecond.
  const noResults = hasNoResults(body)
  if ((noResults || body.length < 20_000) && /<form[^>]+id=["']?captcha-form/i.test(body)) return GOOGLE_BLOCK.captcha
  // A real result page is large; the interstitials are small documents, so body-wide probes are safe.
  if (body.length < 20_000) {
    if (/\/sorry\/(index|image)|sorry\.google\.com/i.test(body)) return GOOGLE_BLOCK.captcha
    if (/g-recaptcha|www\.google\.com\/recaptcha\//i.test(body)) return GOOGLE_BLOCK.captcha
  }
  // Every JavaScript result page carries the enablejs refresh in a <noscript>, and EU pages a
  // hidden consent dialog: only a page without result markup AND without outbound links is the
  // interstitial itself.
  if (noResults && !hasOutboundLink(body)) {
    if (/consent\.google\.[a-z.]+\/(save|ml)|Before you continue to Google/i.test(body)) return GOOGLE_BLOCK.consent
    if (/\/httpservice\/retry\/enablejs|please enable javascript|enable javascript to continue|turn on javascript to keep searching/i.test(body)) {
      return GOOGLE_BLOCK.javascript
    }
    if (/update your browser|browser is no longer supported/i.test(body)) return GOOGLE_BLOCK.oldBrowser
  }
  return undefined
}

/**
 * Real result pages carry the result column, basic-layout result links or headings;
 * interstitials carry none of them.
 */
function hasNoResults(body: string): boolean {
  return !/id=["']?(rso|search|center_col|res)["'\s>]|href=["']\/url\?q=|<h3/i.test(body)
}

const HREF = /href=["']?https?:\/\/([^/"'\s>?#]+)/gi
// Google's own hosts (the interstitials link its help, policies and sign-in pages only).
const GOOGLE_OWNED = /(^|\.)(google\.[a-z.]+|gstatic\.com|googleapis\.com|googleusercontent\.com|googleadservices\.com|doubleclick\.net)$/i

/** Whether the page links anywhere outside Google: results do, interstitials do not. */
function hasOutboundLink(body: string): boolean {
  HREF.lastIndex = 0
  for (let m = HREF.exec(body); m; m = HREF.exec(body)) {
    if (!GOOGLE_OWNED.test(m[1] ?? '')) return true
  }
  return false
}

/**
 * The "enable JavaScript" shell a vertical is sent instead of its page: it points at Google's
 * enablejs retry endpoint and holds none of `markers` (what the vertical's real pages carry, even
 * one with no results, which is answered as empty rather than blocked).
 */
export function isEnableJsShell(body: string, markers: RegExp): boolean {
  if (!body || markers.test(body)) return false
  return /\/httpservice\/retry\/enablejs|please enable javascript|enable javascript to continue/i.test(body)
}
