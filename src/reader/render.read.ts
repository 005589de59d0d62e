import type { FastifyBaseLogger } from 'fastify'
import { ApiError } from '../errors.ts'
import type { Renderer } from '../net/browser/renderer.ts'
import type { SafeFetchResult } from '../net/safe-fetch.ts'
import type { ReadInput } from './reading.types.ts'
import { decideRender, type RenderMode, type ShellSignals } from './render.decide.ts'

/**
 * The rendering step of a page read (docs/rendering.md): after the static read, decide; when the
 * page is to be rendered, draw it in the browser and hand back the drawn HTML for the same reader.
 * Under `auto` a browser that is off, busy past the deadline or failing leaves the static read in
 * place; under `always` those are errors.
 */

export const RENDER_UNAVAILABLE_MESSAGE =
  'render=always is not available on this server: no browser is configured (TRAWL_BROWSER); use render=auto or render=never'

/**
 * 400 before anything is billed when `always` cannot be honoured: no browser, or a `country` read
 * (the browser has no way out but the guard proxy, so it cannot draw a page through a country exit).
 */
export function assertRenderable(renderer: Pick<Renderer, 'available'> | undefined, mode: RenderMode | undefined, country?: string) {
  if (mode !== 'always') return
  if (!renderer?.available) throw new ApiError('invalid_request', RENDER_UNAVAILABLE_MESSAGE)
  if (country) throw new ApiError('invalid_request', "render=always cannot be combined with country: pages are drawn from this server's own network")
}

/**
 * Whether renderIfNeeded will judge the page's content (`auto`, a browser, no country exit): the
 * reader then brings the shell signals from its own parse of the page, on its thread.
 */
export const judgesContent = (renderer: Pick<Renderer, 'available'> | undefined, mode: RenderMode | undefined, country?: string) =>
  mode === 'auto' && renderer?.available === true && !country

export interface RenderStepDeps {
  renderer?: Renderer
  log: FastifyBaseLogger
}

/**
 * The drawn page as the reader's input, or null to keep the static read. `deadline` is the read's
 * own (epoch ms): rendering only gets the time the fetch left.
 */
export async function renderIfNeeded(
  deps: RenderStepDeps,
  fetched: Pick<SafeFetchResult, 'url' | 'contentType' | 'text'>,
  staticRead: { empty: boolean; shell?: ShellSignals },
  mode: RenderMode,
  deadline: number,
  signal?: AbortSignal,
  country?: string,
): Promise<ReadInput | null> {
  if (mode === 'never') return null
  if (country) {
    if (mode === 'always') assertRenderable(deps.renderer, mode, country)
    return null
  }
  const renderer = deps.renderer
  if (!renderer?.available) {
    if (mode === 'always') throw new ApiError('invalid_request', RENDER_UNAVAILABLE_MESSAGE)
    return null
  }
  const isHtml = fetched.contentType === 'html' || fetched.contentType === 'xhtml'
  // PDFs and plain text have nothing for a browser to draw, whatever the mode.
  if (!isHtml) return null
  const decision = decideRender(mode, { html: fetched.text, isHtml, emptyRead: staticRead.empty, signals: staticRead.shell })
  if (!decision.render) return null
  const left = deadline - Date.now()
  try {
    if (left <= 0) throw new ApiError('upstream_timeout', 'no time was left to render the page', { retryAfterSeconds: 5 })
    const page = await renderer.render(fetched.url, { timeoutMs: left, signal })
    // Client-side routing may move the page within its site; a move elsewhere is not followed.
    const url = new URL(page.url).origin === new URL(fetched.url).origin ? page.url : fetched.url
    return { url, contentType: 'html', body: Buffer.from(page.html), text: page.html }
  } catch (err) {
    if (mode === 'always') throw err
    deps.log.warn(
      { err, url: fetched.url, reason: decision.reason },
      'page looked like a JavaScript shell but could not be rendered; the static read is returned',
    )
    return null
  }
}
