/**
 * Engines' gates met by the upstream client (gates/): a challenge in an answer is passed once per
 * engine session at a time (concurrent searches wait for the same pass; a pass another process
 * earned is taken from the shared store first), then the request is asked again.
 */
import { metrics } from '../../metrics/metrics.ts'
import { type EngineGate, GateError, type GateHttp, type GateResponse, type PowSolver } from '../gates/gate.types.ts'
import { createPowSolver } from '../gates/pow.ts'
import type { EngineSessions } from './engine-session.ts'
import { FORM_TYPE, type PageHops, type RawPage, userAgentOf } from './page-hops.ts'
import type { FetchPageRequest } from './upstream.types.ts'
import { isSameSite } from './upstream-route.ts'

export interface GateStats {
  gate: string
  solved: number
  /** Challenges harder than the cap, and refusals of a solved challenge. */
  failed: number
  /** Mean milliseconds of a successful solve; null before the first. */
  meanSolveMs: number | null
}

/** Where one attempt meets a gate: its route, signal and deadline, and its engine session. */
export interface GateAttempt {
  url: URL
  proxyUrl: string | null
  signal: AbortSignal
  deadline: number
  session: string
  /** Passes the session had earned when the request went out. */
  passesBefore: number
}

export class GatePasses {
  private readonly stats = new Map<string, { solved: number; failed: number; solveMs: number }>()
  private readonly solve: PowSolver
  /** One gate passed at a time per session: concurrent searches wait for the same pass. */
  private readonly passing = new Map<string, Promise<void>>()
  /** Passes earned per session: an answer to a request sent before the latest pass is asked again, not solved again. */
  private readonly passCount = new Map<string, number>()

  constructor(
    private readonly hops: PageHops,
    private readonly sessions: EngineSessions,
    solve: PowSolver | undefined,
    powTimeoutMs: number,
  ) {
    this.solve =
      solve ??
      createPowSolver({
        timeoutMs: powTimeoutMs,
        onSolve: (gate, outcome, ms) => {
          metrics.gateSolve(gate, outcome, ms)
          if (outcome !== 'solved') return
          const entry = this.statsOf(gate)
          entry.solved++
          entry.solveMs += ms
        },
      })
  }

  /** Passes the session has earned so far. */
  passesOf(session: string): number {
    return this.passCount.get(session) ?? 0
  }

  /** This process's solves per gate since start. */
  gateStats(): GateStats[] {
    return [...this.stats].map(([gate, e]) => ({
      gate,
      solved: e.solved,
      failed: e.failed,
      meanSolveMs: e.solved > 0 ? Math.round(e.solveMs / e.solved) : null,
    }))
  }

  /**
   * An answer carrying a challenge the engine's gate can solve: passed, then asked again. A gate
   * that cannot be passed throws a GateError (a block with the gate's reason).
   */
  async through(gate: EngineGate, page: RawPage, req: FetchPageRequest, at: GateAttempt): Promise<RawPage> {
    const challenge = gate.detect({ status: page.status, url: page.url, headers: page.headers, body: page.body })
    if (challenge === null) return page
    // Registered before the first await, so concurrent searches on one session wait for ONE pass
    // (taken from the shared store when another process earned it, else solved) and share its fate.
    let pass = this.passing.get(at.session)
    // Sent before a pass another search earned meanwhile: asked again with it, nothing solved.
    if (!pass && this.passesOf(at.session) > at.passesBefore) pass = Promise.resolve()
    if (!pass) {
      const mine = (async () => {
        if (!(await this.sessions.sync(at.session, true))) {
          await gate.pass(challenge, this.gateHttp(req, at), (job, name) => this.solve(job, name))
          await this.sessions.share(at.session)
        }
        this.passCount.set(at.session, this.passesOf(at.session) + 1)
      })()
      pass = mine
      this.passing.set(at.session, mine)
      mine
        .catch((err: unknown) => {
          if (err instanceof GateError) this.statsOf(gate.name).failed++
        })
        .finally(() => this.passing.delete(at.session))
    }
    await pass
    const next = await this.hops.fetchHops(at.proxyUrl, at.url, req, at.signal, Math.max(1, at.deadline - Date.now()))
    if (gate.detect({ status: next.status, url: next.url, headers: next.headers, body: next.body }) !== null) {
      // The engine did not take the pass: start the next try from a clean session.
      this.sessions.forget(at.session)
      this.statsOf(gate.name).failed++
      metrics.gateSolve(gate.name, 'refused', 0)
      throw new GateError('the engine asked again after the challenge was passed')
    }
    return next
  }

  /**
   * HTTP for a gate (gate.types.ts): the request's own headers, proxy route and session, no
   * redirect followed, the body capped as any engine page.
   */
  private gateHttp(req: FetchPageRequest, { proxyUrl, signal, deadline }: GateAttempt): GateHttp {
    const own = Object.fromEntries(Object.entries(req.headers ?? {}).filter(([k]) => !/^(cookie|content-type|origin|referer|sec-fetch-site)$/i.test(k)))
    const send = async (url: string, method: 'GET' | 'POST', body: string | undefined, headers: Record<string, string>): Promise<GateResponse> => {
      const logical = new URL(url)
      // A gate reads addresses from the engine's page: it never leaves the engine's site.
      if (!isSameSite(new URL(req.url), logical)) throw new GateError(`the challenge points off the engine site (${logical.host})`)
      const budget = deadline - Date.now()
      if (budget <= 0) throw new GateError('no time left to pass the gate')
      const { res } = await this.hops.sendOnce(logical, method, { ...own, ...headers }, body, proxyUrl, signal, budget)
      if (res.status >= 300 && res.status < 400) {
        await res.discard()
        return { status: res.status, url: logical.href, headers: res.headers, body: '' }
      }
      return { status: res.status, url: logical.href, headers: res.headers, body: await this.hops.textOf(res) }
    }
    return {
      headers: own,
      get: (url, headers = {}) => send(url, 'GET', undefined, headers),
      post: (url, body, headers = {}) =>
        typeof body === 'string'
          ? send(url, 'POST', body, headers)
          : send(url, 'POST', new URLSearchParams(body).toString(), { 'content-type': FORM_TYPE, ...headers }),
      setCookie: (url, cookie) => {
        const logical = new URL(url)
        this.sessions.setCookie(this.sessions.key(logical, proxyUrl, userAgentOf(req.headers)), logical, cookie)
      },
    }
  }

  private statsOf(gate: string) {
    const entry = this.stats.get(gate) ?? { solved: 0, failed: 0, solveMs: 0 }
    this.stats.set(gate, entry)
    return entry
  }
}
