import type { Page, Request } from 'playwright-core'

/**
 * Follows a page's own requests as playwright reports them (request, then requestfinished or
 * requestfailed; a redirect finishes one request and starts the next) and tells when none has
 * been in flight for a quiet window. Requests are followed one by one, not counted, so a late
 * event for a request that started before the tracker (or twice) cannot skew it. Timed in Node,
 * with no round trip to the browser.
 */
export class NetworkIdle {
  private readonly inFlight = new Set<Request>()
  private lastActivity = Date.now()
  private wake: (() => void) | null = null

  constructor(private readonly page: Page) {
    page.on('request', this.started)
    page.on('requestfinished', this.ended)
    page.on('requestfailed', this.ended)
  }

  /** Requests the page has started since the tracker was made. */
  startedCount = 0

  private readonly started = (r: Request) => {
    this.inFlight.add(r)
    this.startedCount++
    this.touch()
  }

  private readonly ended = (r: Request) => {
    if (this.inFlight.delete(r)) this.touch()
  }

  /** Counts as activity: the quiet window starts again from now (a scroll that may start requests). */
  touch() {
    this.lastActivity = Date.now()
    this.wake?.()
  }

  get pending(): number {
    return this.inFlight.size
  }

  /** Resolves true once nothing has been in flight for `quietMs`, false when `until` comes first. */
  async wait(quietMs: number, until: number): Promise<boolean> {
    for (;;) {
      const now = Date.now()
      if (this.inFlight.size === 0 && now - this.lastActivity >= quietMs) return true
      if (now >= until) return false
      const at = this.inFlight.size === 0 ? Math.min(until, this.lastActivity + quietMs) : until
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, Math.max(1, at - now))
        function done() {
          clearTimeout(timer)
          resolve()
        }
        this.wake = done
      })
      this.wake = null
    }
  }

  dispose() {
    this.page.off('request', this.started)
    this.page.off('requestfinished', this.ended)
    this.page.off('requestfailed', this.ended)
    this.wake?.()
  }
}
