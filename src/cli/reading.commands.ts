import { MapParams } from '../features/map/map.schema.ts'
import { ExtractParams, WebpageParams } from '../features/reading/reading.schema.ts'
import { callApi } from './client.ts'
import { type Command, UsageError } from './command.ts'
import { resolveConnection } from './config-file.ts'
import { paramsFrom, schemaFlags } from './flags.ts'
import { pageAlone, pagesAsMarkdown, print, printJson, warn } from './output.ts'

/** `trawl webpage`, `trawl extract` and `trawl map`: page reading, printed as the page's content (or URLs). */

const webpageFlags = schemaFlags(WebpageParams, { skip: ['url'] })
const extractFlags = schemaFlags(ExtractParams, { skip: ['urls'] })
const mapFlags = schemaFlags(MapParams, { skip: ['url'] })

function oneUrl(positionals: string[]): string {
  if (positionals.length === 0) throw new UsageError('missing <url>')
  if (positionals.length > 1) throw new UsageError(`unexpected argument "${positionals[1]}": one URL`)
  return positionals[0] as string
}

export const readingCommands: Command[] = [
  {
    name: 'webpage',
    summary: 'Read one page (POST /v1/webpage): HTML or PDF as Markdown, text or HTML',
    details:
      "Prints the content in the asked --format (Markdown by default); with --schema, the data the server's model filled from the page, as JSON; --json prints the whole answer with metadata.",
    args: '<url>',
    flags: webpageFlags,
    globals: 'client',
    async run({ values, positionals }) {
      const conn = resolveConnection(values)
      const params = { ...paramsFrom(webpageFlags, values), url: oneUrl(positionals) }
      const { body } = await callApi(conn, 'POST', '/v1/webpage', params)
      if (values.json) {
        printJson(body)
        return 0
      }
      if (body.meta?.empty_page) warn(`${body.url}: no readable content (not billed)`)
      if (values.schema !== undefined) printJson(body.data ?? null)
      else print(body.highlights?.length ? pagesAsMarkdown([body]) : pageAlone(body))
      return 0
    },
  },
  {
    name: 'extract',
    summary: 'Read up to 20 pages (POST /v1/extract), 5 at a time',
    details: 'Prints each page as a Markdown section (with --schema, a JSON list of {url, data}); failed URLs are listed on stderr and make the exit code 1.',
    args: '<url...>',
    flags: extractFlags,
    globals: 'client',
    async run({ values, positionals }) {
      const conn = resolveConnection(values)
      if (!positionals.length) throw new UsageError('missing <url...>')
      const params = paramsFrom(extractFlags, values)
      const { body } = await callApi(conn, 'POST', '/v1/extract', { ...params, urls: positionals })
      if (values.json) printJson(body)
      else if (params.schema !== undefined) printJson(body.results.map((r: { url: string; data?: unknown }) => ({ url: r.url, data: r.data ?? null })))
      else if (body.results.length) print(pagesAsMarkdown(body.results))
      for (const f of body.failed as { url: string; error: { code: string; message: string } }[]) warn(`${f.url}: ${f.error.code}: ${f.error.message}`)
      return body.failed.length ? 1 : 0
    },
  },
  {
    name: 'map',
    summary: "List a site's URLs (POST /v1/map): sitemaps and start-page links, cleaned and de-duplicated",
    details: 'Prints one URL per line; --json prints titles, lastmod and sources too.',
    args: '<url>',
    flags: mapFlags,
    globals: 'client',
    async run({ values, positionals }) {
      const conn = resolveConnection(values)
      const { body } = await callApi(conn, 'POST', '/v1/map', { ...paramsFrom(mapFlags, values), url: oneUrl(positionals) })
      if (values.json) printJson(body)
      else if (body.results.length) print(body.results.map((r: { url: string }) => r.url).join('\n'))
      else warn('no URLs found (not billed)')
      return 0
    },
  },
]
