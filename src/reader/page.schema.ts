import { z } from 'zod'

/** A read page as callers receive it (/v1/webpage, /v1/extract, crawl pages): the one definition of its shape and types. */
export const PageMetadata = z.looseObject({
  description: z.string().optional(),
  author: z.string().optional(),
  language: z.string().optional(),
  site_name: z.string().optional(),
  canonical_url: z.string().optional(),
  modified_at: z.string().optional(),
  open_graph: z.record(z.string(), z.string()).optional(),
  twitter: z.record(z.string(), z.string()).optional(),
  json_ld_type: z.union([z.string(), z.array(z.string())]).optional(),
  pages: z.number().int().optional().describe("PDFs: page count, beside the document's own producer fields"),
})

export const ReadLink = z.object({ url: z.string(), text: z.string() })

export const Highlight = z.object({ text: z.string(), score: z.number(), heading: z.string().nullable() })

export const PageResult = z.object({
  url: z.string().describe('final URL, after redirects'),
  status_code: z.number().int(),
  title: z.string().nullable(),
  published_at: z.string().nullable(),
  metadata: PageMetadata,
  cached: z.boolean(),
  cached_at: z.string().optional(),
  rendered: z.boolean().describe('drawn by the headless browser (render) rather than read from the static HTML'),
  markdown: z.string().optional(),
  text: z.string().optional(),
  html: z.string().optional(),
  links: z.array(ReadLink).optional(),
  images: z.array(z.string()).optional(),
  highlights: z.array(Highlight).optional(),
})
