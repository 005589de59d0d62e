import { z } from 'zod'
import { VERTICAL_ITEMS as ITEMS } from '../../../engines/results.schema.ts'
import { SearchMeta } from '../search.response.ts'
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

const responses = new Map<VerticalName, z.ZodObject>()

/** The response schema of a vertical: one instance each, shared by its routes and the json output. */
export function verticalResponse(name: VerticalName): z.ZodObject {
  let schema = responses.get(name)
  if (!schema) {
    schema = z.object({
      request: z.record(z.string(), z.unknown()).describe('the normalised request, defaults filled in'),
      results: z.array(ITEMS[name]),
      ...(name === 'reviews' && { next_page_token: z.string().optional().describe('absent on the last page and past the first 100 reviews') }),
      meta: SearchMeta,
    })
    responses.set(name, schema)
  }
  return schema
}
