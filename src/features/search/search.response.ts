import { z } from 'zod'
import { SearchMeta } from '../../billing/search-meta.ts'
import type { Parsed } from '../../engines/engine.types.ts'
import { OrganicResult, SearchSections } from '../../engines/results.schema.ts'

/**
 * The /v1/search response (format=json): the one definition of these shapes. The OpenAPI document
 * is generated from it and the TypeScript types are inferred from it (engines/engine.types.ts). Item
 * fields are required and nullable: format=json sends every one, null when unknown, [] for an empty
 * list (output/stable-shape.ts). Optional keys are the ones that may be absent on purpose.
 * format=compact and fields= trim it.
 */
export const SearchResponse = z.object({
  request: z.record(z.string(), z.unknown()).describe('the normalised request, defaults filled in'),
  results: z.array(OrganicResult),
  ...SearchSections.shape,
  meta: SearchMeta,
})

export type SearchResponse = z.infer<typeof SearchResponse>

/**
 * A search-family response `R` as its service builds and caches it: `request` and `meta` as `R`
 * has them, what was found as the parsers give it (`Parsed`: what a page lacks is left out, and
 * format=json fills it in on the way out, output/stable-shape.ts).
 */
export type Built<R extends { request: unknown; results: unknown[]; meta: unknown }> = R extends unknown
  ? Pick<R, 'request' | 'meta'> & { results: Parsed<R['results']> } & Parsed<Omit<R, 'request' | 'results' | 'meta'>>
  : never
