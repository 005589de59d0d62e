import { z } from 'zod'
import { SearchMeta } from '../../billing/search-meta.ts'
import * as p from '../../params/search.params.ts'

/** The domain to look for: a host name, or a URL whose host is taken; `www.` is folded away. */
const domain = z
  .string({ error: 'domain must be a string such as example.com' })
  .trim()
  .min(1, 'domain must not be empty')
  .max(253, 'domain must be at most 253 characters')
  .transform((raw, ctx) => {
    const host = hostOf(raw)
    if (!host) {
      ctx.addIssue({ code: 'custom', message: 'domain must be a domain such as example.com (subdomains match)' })
      return z.NEVER
    }
    return host
  })

function hostOf(raw: string): string | undefined {
  let host = raw.toLowerCase()
  try {
    if (/^[a-z][a-z0-9+.-]*:\/\//.test(host)) host = new URL(host).hostname
  } catch {
    return undefined
  }
  host =
    host
      .split(/[/?#]/)[0]
      ?.replace(/\.$/, '')
      .replace(/^www\./, '') ?? ''
  return /^([a-z0-9-]+\.)+[a-z0-9-]{2,63}$/.test(host) ? host : undefined
}

/** POST /v1/rank: q, domain, num (default 100), country, language, location, device, max_age. */
export const RankParams = z.strictObject({
  q: p.q.describe('the keyword'),
  domain: domain.describe('domain to find; subdomains match (blog.example.com matches example.com)'),
  num: p.num.optional().describe('results inspected: 10, 20, 30, 50 or 100 (default); 100 costs 7 credits'),
  country: p.country.optional().describe('two-letter ISO code; default us'),
  language: p.language.optional().describe('default en'),
  location: p.location.optional().describe('canonical location text; a trailing country name also sets country'),
  device: p.device.optional().describe('desktop (default) or mobile'),
  max_age: p.maxAge.optional().describe('accept a cached result up to this many seconds old, at half price'),
})

export type RankParams = z.infer<typeof RankParams>

export const RankResponse = z.object({
  request: z.record(z.string(), z.unknown()),
  domain: z.string().describe('the normalised domain searched for'),
  position: z.number().int().nullable().describe('best organic position; null when not in the checked results'),
  matches: z.array(z.object({ position: z.number().int(), title: z.string(), link: z.string() })),
  checked: z.number().int().describe('organic results inspected'),
  meta: SearchMeta,
})

export type RankResponse = z.infer<typeof RankResponse>
