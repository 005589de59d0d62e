import { z } from 'zod'
import * as p from '../../params/search.params.ts'

/**
 * Query parameters of Google's Custom Search JSON API that /customsearch/v1 honours, so clients of
 * that API (closing 2027-01-01) move by changing only the root URL. Google's standard system
 * parameters (fields, alt, prettyPrint, quotaUser, userIp) are accepted; anything else is a 400 naming it.
 */
export const CseParams = z
  .strictObject({
    q: p.q.describe('the query'),
    cx: z.string().max(256, 'cx must be at most 256 characters').optional().describe('accepted and echoed; Trawl searches the whole web'),
    num: p.intBetween('num', 1, 10).optional().describe('1 to 10 results (default 10)'),
    start: p.intBetween('start', 1, 100).optional().describe('1-based index of the first result (default 1); start + num - 1 may not pass 100'),
    gl: p.country.optional().describe('two-letter country code'),
    hl: p.language.optional().describe('interface language'),
    lr: z
      .string()
      .regex(/^lang_[a-zA-Z]{2,3}(-[a-zA-Z]{2})?$/, 'lr must look like lang_en or lang_zh-TW')
      .optional()
      .describe('restrict to a language, lang_xx; used when hl is absent'),
    cr: z
      .string()
      .regex(/^country[A-Z]{2}$/, 'cr must look like countryUS (Trawl takes one country)')
      .optional()
      .describe('countryXX; used when gl is absent'),
    safe: z.enum(['active', 'off', 'high', 'medium'], { error: 'safe must be active or off' }).optional().describe('active or off (default)'),
    dateRestrict: z
      .string()
      .regex(/^[dwmy]\d{0,4}$/, 'dateRestrict must look like d7, w2, m6 or y1')
      .optional()
      .describe('d[n], w[n], m[n] or y[n]: only results from the last n days, weeks, months or years'),
    siteSearch: z.string().trim().min(1).max(256, 'siteSearch must be at most 256 characters').optional().describe('a site to include or exclude'),
    siteSearchFilter: z.enum(['i', 'e'], { error: 'siteSearchFilter must be i (include) or e (exclude)' }).optional(),
    searchType: z.enum(['image'], { error: 'searchType must be image (leave it out for web results)' }).optional(),
    exactTerms: z.string().max(512).optional().describe('a phrase every result contains'),
    excludeTerms: z.string().max(512).optional().describe('a word or phrase no result contains'),
    orTerms: z.string().max(512).optional().describe('additional terms, any of which may match'),
    hq: z.string().max(512).optional().describe('appended to the query as AND terms'),
    fileType: z
      .string()
      .regex(/^[a-zA-Z0-9]{1,10}$/, 'fileType must be an extension such as pdf')
      .optional(),
    lowRange: z.string().max(32).optional(),
    highRange: z.string().max(32).optional(),
    filter: z.enum(['0', '1'], { error: 'filter must be 0 or 1' }).optional().describe('accepted; duplicate filtering is always on'),
    c2coff: z.enum(['0', '1']).optional().describe('accepted; no effect'),
    googlehost: z.string().max(64).optional().describe('accepted; no effect (use gl)'),
    fields: z
      .string()
      .min(1, 'fields must not be empty')
      .optional()
      .describe("Google's partial-response selector, e.g. items(title,link),searchInformation/totalResults"),
    alt: z.enum(['json'], { error: 'alt must be json' }).optional(),
    prettyPrint: z.boolean().optional(),
    quotaUser: z.string().max(64).optional(),
    userIp: z.string().max(64).optional(),
  })
  .superRefine((v, ctx) => {
    if ((v.start ?? 1) + (v.num ?? 10) - 1 > 100) {
      ctx.addIssue({ code: 'custom', path: ['start'], message: 'start + num - 1 must not pass 100 (the first 100 results)' })
    }
  })

export type CseParams = z.infer<typeof CseParams>
