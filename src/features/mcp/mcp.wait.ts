import { ToolError } from './mcp.api.ts'
import type { ToolContext } from './mcp.tools.ts'

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/**
 * Polls `read` until `done` or the wait runs out (every 1 to 3 s), reporting progress when the
 * client asked for it. Each poll is a REST status read on the caller's key, rate counted as such:
 * a rate-limited poll ends the wait with the state so far rather than failing the tool call.
 */
export async function waitFor<T>(
  ctx: Pick<ToolContext, 'progress'>,
  seconds: number,
  first: T,
  read: () => Promise<T>,
  done: (t: T) => boolean,
  report: (t: T) => [number, number | undefined, string],
) {
  let state = first
  const until = Date.now() + seconds * 1000
  let delay = 1000
  while (!done(state) && Date.now() + delay <= until) {
    await sleep(delay)
    delay = Math.min(3000, Math.round(delay * 1.5))
    try {
      state = await read()
    } catch (e) {
      if (e instanceof ToolError && e.code === 'rate_limited') break
      throw e
    }
    const [progress, total, message] = report(state)
    await ctx.progress?.(progress, total, message).catch(() => {})
  }
  return state
}
