import { z } from 'zod'

/** Parameters /v1/map and /v1/crawl share (both bodies are in the OpenAPI document; docs/crawl.md). */

const pathPattern = (name: string) =>
  z
    .string({ error: `${name} entries must be regular expressions` })
    .min(1, `${name} entries must not be empty`)
    .max(200, `${name} entries must be at most 200 characters`)
    .refine((source) => {
      try {
        new RegExp(source)
        return true
      } catch {
        return false
      }
    }, `${name} entries must be valid regular expressions`)

export const pathPatterns = (name: string) =>
  z.array(pathPattern(name), { error: `${name} must be a list of regular expressions` }).max(20, `${name} may list at most 20 patterns`)

export const siteUrl = z
  .string({ error: 'url is required' })
  .trim()
  .max(2048, 'url must be at most 2,048 characters')
  .refine((s) => URL.canParse(s) && /^https?:$/.test(new URL(s).protocol), 'url must be an http(s) URL')

export const sitemapMode = z.enum(['include', 'only', 'skip'], { error: 'sitemap must be include, only or skip' })

/** Compiled path filters: keep a URL when it matches an include (if any) and no exclude. */
export function pathFilter(include: string[] = [], exclude: string[] = []) {
  const inc = include.map((s) => new RegExp(s))
  const exc = exclude.map((s) => new RegExp(s))
  return (url: string) => {
    const path = new URL(url).pathname.slice(0, 2048) // bounded input for user patterns
    return (inc.length === 0 || inc.some((r) => r.test(path))) && !exc.some((r) => r.test(path))
  }
}
