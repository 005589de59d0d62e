import { z } from 'zod'
import { SearchMeta } from '../../../billing/search-meta.ts'
import { VERTICAL_ITEMS as ITEMS } from '../../../engines/results.schema.ts'
import type { VerticalName } from './vertical.specs.ts'

/**
 * Response bodies of the verticals (format=json; compact and fields= trim them): the one definition
 * of their shapes, for the OpenAPI document and the inferred types (engines/engine.types.ts). Every item
 * field listed here is required: null when unknown, [] for an empty list (output/stable-shape.ts).
 */

/** The wire shape of one `results[]` item of a vertical. */
export type VerticalItem<N extends VerticalName> = z.infer<(typeof ITEMS)[N]>

/** A vertical's item fields (besides position), in the order of its schema. */
export function itemFields(name: VerticalName): string[] {
  return Object.keys(ITEMS[name].shape).filter((f) => f !== 'position')
}

/** A vertical's response schema; only reviews pages on with next_page_token. */
function responseOf<N extends VerticalName>(name: N) {
  const paged = z.object({
    request: z.record(z.string(), z.unknown()).describe('the normalised request, defaults filled in'),
    results: z.array(ITEMS[name]),
    next_page_token: z.string().optional().describe('absent on the last page and past the first 100 reviews'),
    meta: SearchMeta,
  })
  return name === 'reviews' ? paged : paged.omit({ next_page_token: true })
}

type VerticalResponseSchema<N extends VerticalName> = ReturnType<typeof responseOf<N>>

const responses = new Map<VerticalName, VerticalResponseSchema<VerticalName>>()

/** The response schema of a vertical: one instance each, shared by its routes and the json output. */
export function verticalResponse<N extends VerticalName>(name: N): VerticalResponseSchema<N> {
  let schema = responses.get(name)
  if (!schema) {
    schema = responseOf(name)
    responses.set(name, schema)
  }
  return schema as VerticalResponseSchema<N>
}

/** The format=json body of any vertical. */
export type VerticalResponse = z.infer<VerticalResponseSchema<VerticalName>>
