/** Recognises Google's CAPTCHA ("sorry"), rate-limit, consent and browser-check pages. */

export interface GoogleResponse {
  status: number
  /** Final URL after redirects. */
  url: string
  body: string
}

export interface GoogleBlock {
  code: 'upstream_blocked'
  reason: string
}

const blocked = (reason: string): GoogleBlock => ({ code: 'upstream_blocked', reason })

/** A block verdict for a fetched Google page, or null when the page is a result page. */
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
  if (host === 'sorry.google.com' || path.startsWith('/sorry')) return blocked('redirected to the Google CAPTCHA page')
  if (host.startsWith('consent.google.')) return blocked('redirected to the Google consent page')
  if (res.status === 429) return blocked('HTTP 429 from Google')
  if (res.status === 503 && /recaptcha/i.test(res.body)) return blocked('reCAPTCHA challenge (HTTP 503)')
  const reason = detectGoogleBlockInHtml(res.body)
  return reason ? blocked(reason) : null
}

/** Why an HTML body is a block page rather than results, or undefined. */
export function detectGoogleBlockInHtml(body: string): string | undefined {
  if (!body) return undefined
  // A page with result markup is no CAPTCHA page, and the markup comes early (a tenth of a
  // millisecond to find): only small documents (block pages are) and pages without results are
  // searched for the form. Searching all of a 1-2 MB result page for it cost most of a millisecond.
  const noResults = hasNoResults(body)
  if ((noResults || body.length < 20_000) && /<form[^>]+id=["']?captcha-form/i.test(body)) return 'CAPTCHA form'
  // A real result page is large; the interstitials are small documents, so body-wide probes are safe.
  if (body.length < 20_000) {
    if (/\/sorry\/(index|image)|sorry\.google\.com/i.test(body)) return 'Google "unusual traffic" page'
    if (/g-recaptcha|www\.google\.com\/recaptcha\//i.test(body)) return 'reCAPTCHA challenge'
  }
  if (noResults) {
    if (/consent\.google\.[a-z.]+\/(save|ml)|Before you continue to Google/i.test(body)) return 'Google consent wall'
    if (
      /update your browser|browser is no longer supported|please enable javascript|enable javascript to continue|\/httpservice\/retry\/enablejs/i.test(body)
    ) {
      return 'Google browser check (JavaScript or a newer browser required)'
    }
  }
  return undefined
}

/**
 * Real result pages carry the result column or basic-layout result links; interstitials carry
 * neither. Google also embeds a (hidden) consent dialog in normal EU result pages.
 */
function hasNoResults(body: string): boolean {
  return !/id=["']?(rso|search|center_col|res)["'\s>]|href=["']\/url\?q=|<h3/i.test(body)
}
