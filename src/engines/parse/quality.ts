/** How a parser judges the page it read. */
import type { ParseQuality } from '../engine.types.ts'
import { type Json, obj } from './text.ts'

/** 'ok' when results came out cleanly, 'partial' when some result blocks could not be read, 'empty' with nothing. */
export function qualityOf(results: number, failed: number): ParseQuality {
  if (!results) return failed ? 'partial' : 'empty'
  return failed ? 'partial' : 'ok'
}

/** The objects of a JSON list read with `read` (positions from 1 among those read), and how many there were. */
export function readItems<T>(items: unknown[], read: (item: Json, position: number) => T | undefined): { results: T[]; present: number } {
  const results: T[] = []
  for (const item of items) {
    const o = obj(item)
    const r = o ? read(o, results.length + 1) : undefined
    if (r) results.push(r)
  }
  return { results, present: items.length }
}
