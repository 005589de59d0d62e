import type * as Cheerio from 'cheerio'
import { requireOnFirstUse } from '../../paths.ts'

const cheerio = requireOnFirstUse<typeof Cheerio>('cheerio')

/**
 * `cheerio.load`, with cheerio (parse5, css-select, its own fetch helpers) required at the first
 * page parsed rather than at start: an idle server does without it (docs/performance.md). A
 * static import would not do: the bundle hoists a package's static imports to its start.
 */
export function loadCheerio(...args: Parameters<typeof Cheerio.load>): Cheerio.CheerioAPI {
  return cheerio().load(...args)
}
