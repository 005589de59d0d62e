/** How a parser judges the page it read. */
import type { ParseQuality } from '../engine.types.ts'

/** 'ok' when results came out cleanly, 'partial' when some result blocks could not be read, 'empty' with nothing. */
export function qualityOf(results: number, failed: number): ParseQuality {
  if (!results) return failed ? 'partial' : 'empty'
  return failed ? 'partial' : 'ok'
}
