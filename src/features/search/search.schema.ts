import { z } from 'zod'
import { describeEngines } from '../../engines/registry.ts'
import * as p from '../../params/search.params.ts'

/** POST body and GET query of /v1/search: the parameters that apply to web search. */
export const SearchParams = z
  .strictObject({
    q: p.q.describe('the query'),
    country: p.country.optional().describe('two-letter ISO code; default us'),
    language: p.language.optional().describe('language code, optional region (en, pt-BR); default en'),
    location: p.location.optional().describe('canonical location text, e.g. Austin,Texas,United States; a trailing country name also sets country'),
    uule: p.uule.optional().describe('engine-encoded location; instead of location'),
    ll: p.ll.optional().describe('viewport @lat,lng,zoomz (used by maps; accepted here)'),
    num: p.num.optional().describe('10, 20, 30, 50 or 100 results; 1 credit per 10, 100 costs 7; >10 needs page=1'),
    page: p.page.optional().describe('1 to 10; each page billed'),
    time: p.time.optional().describe('hour, day, week, month or year'),
    tbs: p.tbs.optional().describe('raw engine filter, e.g. qdr:w or a cdr range'),
    safe: p.safe.optional().describe('off (default) or active'),
    device: p.device.optional().describe('desktop (default) or mobile results'),
    autocorrect: p.flag('autocorrect').optional().describe('false searches the query exactly as written'),
    ads: p.flag('ads').optional().describe('include ads'),
    include_content: z
      .number({ error: 'include_content must be the number of top results to read (1 to 10)' })
      .int()
      .min(0, 'include_content must be between 0 and 10')
      .max(10, 'include_content must be between 0 and 10')
      .optional()
      .describe('read the top N results as Markdown too; +1 credit per page read'),
    format: p.format.optional().describe('json (default), compact or markdown'),
    fields: p.fields.optional().describe('projection, e.g. results.title,results.link'),
    max_age: p.maxAge.optional().describe('accept a cached result up to this many seconds old, at half price'),
    engine: p.engine
      .optional()
      .describe(
        `${describeEngines()}; a comma-separated list or array of them (tried in that order); auto (fall back across providers when one is blocked, slow or unreadable); or consensus (several providers in parallel, merged by URL)`,
      ),
    include_domains: p.domainList('include_domains').optional().describe('up to 20 domains, path prefixes or TLDs (.gov) to keep'),
    exclude_domains: p.domainList('exclude_domains').optional().describe('up to 20 domains, path prefixes or TLDs to drop'),
  })
  .superRefine((v, ctx) => {
    if ((v.num ?? 10) > 10 && (v.page ?? 1) !== 1) {
      ctx.addIssue({ code: 'custom', path: ['num'], message: 'num > 10 (depth) requires page=1' })
    }
    if (v.location && v.uule) ctx.addIssue({ code: 'custom', path: ['uule'], message: 'uule: send location or uule, not both' })
  })

export type SearchParams = z.infer<typeof SearchParams>
