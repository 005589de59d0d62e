/**
 * A gate is what an engine puts in front of clients that are not browsers: a proof-of-work
 * challenge (Anubis-style SHA-256, Altcha), earned once and then carried as cookies. Trawl does
 * what a browser does: the upstream client recognises the challenge in an answer (`detect`),
 * solves it off the event loop and redeems it (`pass`), keeps the cookies it earned in the engine
 * session's cookie jar (shared with the deployment's other processes), and asks again.
 */

/** An engine's answer as a gate sees it (after TRAWL_UPSTREAM_HOSTS mapping is undone: `url` is the engine's). */
export interface GateResponse {
  status: number
  url: string
  /** Lower-case names; `set-cookie` may be a list. */
  headers: Record<string, string | string[] | undefined>
  body: string
}

/**
 * HTTP from inside a gate: the same transport, proxy route, identity (User-Agent and the headers
 * that go with it) and cookie jar as the request it unlocks. Redirects are not followed (their
 * Set-Cookie still reaches the jar); the answer is returned as it came.
 */
export interface GateHttp {
  get(url: string, headers?: Record<string, string>): Promise<GateResponse>
  /** A form POST (`application/x-www-form-urlencoded; charset=utf-8`), or a raw body with its own content-type header. */
  post(url: string, body: Record<string, string> | string, headers?: Record<string, string>): Promise<GateResponse>
  /** Sets a cookie in the jar for `url`, as the challenge page's own script would (`document.cookie`). */
  setCookie(url: string, cookie: string): void
  /** The engine request's own headers (User-Agent, Accept-Language, …), to send with the gate's requests. */
  readonly headers: Record<string, string>
}

/** A proof-of-work job, run on a worker thread (pow.ts). */
export type PowJob =
  /** Anubis: SHA-256(challenge + nonce) as hex must start with `difficulty` zeros. */
  | { kind: 'sha256-prefix'; challenge: string; difficulty: number }
  /** Altcha v1: the number n in [0, maxNumber] with hex(H(salt + n)) = challenge; H per `algorithm`. */
  | { kind: 'altcha-hash'; algorithm: 'SHA-256' | 'SHA-384' | 'SHA-512'; salt: string; challenge: string; maxNumber: number }
  /** Altcha v2 (key derivation): the counter whose derived key starts with `keyPrefix`, per the challenge's parameters. */
  | { kind: 'altcha-kdf'; params: Record<string, unknown> }

export interface PowSolution {
  /** The nonce / number found. */
  nonce: number
  /** The winning hash or derived key, hex, where the protocol sends it back. */
  hash?: string
  /** Milliseconds the worker spent. */
  ms: number
}

/** Runs a job under the solve cap; rejects with GateError when it is harder than the cap allows. */
export type PowSolver = (job: PowJob, gate: string) => Promise<PowSolution>

/** Why a gate could not be passed: becomes the route's block reason, so it must say why in a few words. */
export class GateError extends Error {
  override name = 'GateError'
}

export interface EngineGate {
  /** The gate's name in metrics, logs and block reasons: `anubis`, `altcha`. */
  name: string
  /** The challenge this gate solves, found in an answer, or null. Runs on every answer of the engine: cheap. */
  detect(res: GateResponse): unknown | null
  /**
   * Solves the challenge and redeems it; the jar keeps the cookies earned. Throws GateError when it
   * cannot (too hard for the cap, refused by the engine). The caller then asks the original request again.
   */
  pass(challenge: unknown, http: GateHttp, solve: PowSolver): Promise<void>
}
