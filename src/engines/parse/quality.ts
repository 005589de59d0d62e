/** How a parser judges the page it read. */
import type { ParseQuality } from '../engine.types.ts'
import { type Json, obj } from './text.ts'

/**
 * `page`, marked `saysNoResults` when it is `empty` (no item, none unreadable) and `recognised`
 * says the answer had the shape the parser expects (JSON of the known form, an RSS feed): the
 * engine itself said it has nothing, which health counts as a clean answer, not as drift.
 */
export function confirmEmpty<P extends { parse_quality: ParseQuality; saysNoResults?: true }>(page: P, recognised = true): P {
  if (recognised && page.parse_quality === 'empty') page.saysNoResults = true
  return page
}

/** 'ok' when results came out cleanly, 'partial' when some result blocks could not be read, 'empty' with nothing. */
export function qualityOf(results: number, failed: number): ParseQuality {
  if (!results) return failed ? 'partial' : 'empty'
  return failed ? 'partial' : 'ok'
}

/**
 * Each element read with `read` (positions from 1 among those read), and the page's quality: the
 * elements `read` could not make a result of make it partial.
 */
export function readEach<E, T>(elements: E[], read: (element: E, position: number) => T | undefined): { results: T[]; parse_quality: ParseQuality } {
  const results: T[] = []
  let failed = 0
  for (const element of elements) {
    const r = read(element, results.length + 1)
    if (r) results.push(r)
    else failed++
  }
  return { results, parse_quality: qualityOf(results.length, failed) }
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
