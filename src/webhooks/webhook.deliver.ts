import type { AddressPolicy } from '../net/address-policy.ts'
import { findBlocked, guardedDispatcher, parseHttpUrl } from '../net/safe-fetch.ts'
import { undici } from '../net/undici.ts'

export interface SendOptions {
  allowPrivateNetwork: boolean
  /** A receiver must answer 2xx within 10 seconds. */
  timeoutMs: number
  /** Tests only: replaces the private-network rule (see SafeFetchOptions.addressPolicy). */
  addressPolicy?: AddressPolicy
}

/**
 * `permanent`: no later attempt can go differently (a URL that is not an http(s) URL, or one the
 * address policy refuses), so the delivery fails at once instead of being retried.
 */
export type SendResult = { ok: true; statusCode: number } | { ok: false; statusCode: number | null; error: string; permanent?: true }

export const REFUSED_ADDRESS_ERROR = 'refused: the webhook URL resolves to a private or reserved address'

/** A receiver's answer is only diagnostics; a little is kept for last_error, the rest is dropped. */
const RESPONSE_SNIPPET_BYTES = 512

/**
 * One POST of a webhook through the private-network guard. Redirects are not followed: a 3xx is a
 * failed attempt, which also means a redirect can never steer a signed body to a
 * host nobody configured.
 */
export async function sendWebhook(rawUrl: string, headers: Record<string, string>, body: string, opts: SendOptions): Promise<SendResult> {
  let url: URL
  try {
    url = parseHttpUrl(rawUrl)
  } catch (e) {
    return { ok: false, statusCode: null, error: (e as Error).message, permanent: true }
  }
  const deadline = AbortSignal.timeout(opts.timeoutMs)
  const { dispatcher, release } = guardedDispatcher(opts)
  try {
    const res = await undici().request(url, { method: 'POST', dispatcher, signal: deadline, headers, body })
    const status = res.statusCode
    const snippet = await readSnippet(res.body)
    if (status >= 200 && status < 300) return { ok: true, statusCode: status }
    if (status >= 300 && status < 400) {
      return { ok: false, statusCode: status, error: `HTTP ${status}: redirects are not followed; use the final URL` }
    }
    return { ok: false, statusCode: status, error: `HTTP ${status}${snippet ? `: ${snippet}` : ''}` }
  } catch (e) {
    if (findBlocked(e)) return { ok: false, statusCode: null, error: REFUSED_ADDRESS_ERROR, permanent: true }
    return { ok: false, statusCode: null, error: describeFailure(e, deadline, opts.timeoutMs) }
  } finally {
    release()
  }
}

/** Reads at most a small prefix of the answer, then drops the rest (and with it the connection). */
async function readSnippet(body: AsyncIterable<Buffer> & { destroy(): void; on(e: 'error', f: () => void): void }): Promise<string> {
  const chunks: Buffer[] = []
  let total = 0
  try {
    for await (const chunk of body) {
      chunks.push(chunk)
      total += chunk.length
      if (total >= RESPONSE_SNIPPET_BYTES) break
    }
  } catch {
    // A body that breaks off after the status line changes nothing: the status decides.
  } finally {
    body.on('error', () => {})
    body.destroy()
  }
  return Buffer.concat(chunks).subarray(0, RESPONSE_SNIPPET_BYTES).toString('utf8').replace(/\s+/g, ' ').trim().slice(0, 200)
}

function describeFailure(e: unknown, deadline: AbortSignal, timeoutMs: number): string {
  if (deadline.aborted) return `no answer within ${timeoutMs} ms`
  const code = (e as { code?: string }).code ?? ''
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return 'host name does not resolve'
  return `connection failed: ${code || (e as Error).message}`
}
