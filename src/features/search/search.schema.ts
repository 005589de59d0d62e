import { z } from 'zod'
import * as p from './search.params.ts'

/** POST body and GET query of /v1/search (SPEC parameter table, "Applies to" search). */
export const SearchParams = z
  .strictObject({
    q: p.q,
    country: p.country.optional(),
    language: p.language.optional(),
    location: p.location.optional(),
    uule: p.uule.optional(),
    ll: p.ll.optional(),
    num: p.num.optional(),
    page: p.page.optional(),
    time: p.time.optional(),
    tbs: p.tbs.optional(),
    safe: p.safe.optional(),
    device: p.device.optional(),
    autocorrect: p.flag('autocorrect').optional(),
    ads: p.flag('ads').optional(),
    include_content: z
      .number({ error: 'include_content must be the number of top results to read (1 to 10)' })
      .int()
      .min(0, 'include_content must be between 0 and 10')
      .max(10, 'include_content must be between 0 and 10')
      .optional(),
    format: p.format.optional(),
    fields: p.fields.optional(),
    max_age: p.maxAge.optional(),
    engine: p.engine.optional(),
    include_domains: p.domainList('include_domains').optional(),
    exclude_domains: p.domainList('exclude_domains').optional(),
  })
  .superRefine((v, ctx) => {
    if ((v.num ?? 10) > 10 && (v.page ?? 1) !== 1) {
      ctx.addIssue({ code: 'custom', path: ['num'], message: 'num > 10 (depth) requires page=1' })
    }
    if (v.location && v.uule) ctx.addIssue({ code: 'custom', path: ['uule'], message: 'uule: send location or uule, not both' })
  })

export type SearchParams = z.infer<typeof SearchParams>
