import type { z } from 'zod'
import { RankParams } from '../features/rank/rank.schema.ts'
import { SearchParams } from '../features/search/search.schema.ts'
import { VERTICAL_SPECS, type VerticalName } from '../features/search/verticals/vertical.specs.ts'
import { callApi } from './client.ts'
import { type Command, type Flags, type Parsed, UsageError } from './command.ts'
import { resolveConnection } from './config-file.ts'
import { paramsFrom, schemaFlags } from './flags.ts'
import { print, printJson } from './output.ts'

/**
 * `trawl search` and every vertical, and `trawl rank`: flags are the endpoint's parameters (its own
 * zod schema), the query or URL is the positional argument, and the answer is printed as the
 * server's Markdown (format=markdown) unless --json, --format or --fields ask for JSON.
 */

type Render = (body: any) => string

interface SearchLike {
  name: string
  summary: string
  details?: string
  schema: z.ZodObject
  path: string
  /** The parameter the positional arguments fill (joined by spaces for a query). */
  positional: 'q' | 'url' | null
  /** The server renders Markdown for this endpoint (not autocomplete, lens, rank). */
  markdown: boolean
  /** Text rendering of the JSON answer when the server has no Markdown form. */
  render?: Render
}

function searchCommand(spec: SearchLike): Command {
  const flags: Flags = schemaFlags(spec.schema, {
    skip: spec.positional ? [spec.positional] : [],
    // The API's default is json; in a terminal the CLI asks for Markdown unless told otherwise.
    ...(spec.markdown && { help: { format: 'markdown (the default here), json (as --json) or compact' } }),
  })
  const args = spec.positional === 'q' ? '<query...>' : spec.positional === 'url' ? '<url>' : undefined
  return {
    name: spec.name,
    summary: spec.summary,
    details: spec.details,
    args,
    flags,
    globals: 'client',
    async run(parsed) {
      const conn = resolveConnection(parsed.values)
      const params = paramsFrom(flags, parsed.values)
      fillPositional(spec.positional, params, parsed, args)
      return runSearchLike(conn, spec, params, parsed.values.json === true)
    },
  }
}

function fillPositional(positional: SearchLike['positional'], params: Record<string, unknown>, parsed: Parsed, args: string | undefined) {
  const { positionals } = parsed
  if (!positional) {
    if (positionals.length) throw new UsageError(`unexpected argument "${positionals[0]}"`)
    return
  }
  if (!positionals.length) throw new UsageError(`missing ${args}`)
  if (positional === 'url' && positionals.length > 1) throw new UsageError(`unexpected argument "${positionals[1]}": one URL`)
  params[positional] = positionals.join(' ')
}

async function runSearchLike(conn: Parameters<typeof callApi>[0], spec: SearchLike, params: Record<string, unknown>, json: boolean) {
  const asked = params.format !== undefined || params.fields !== undefined
  if (json && params.format === 'markdown') throw new UsageError('--json and --format markdown contradict each other')
  if (!json && !asked && spec.markdown) params.format = 'markdown'
  const reply = await callApi(conn, 'POST', spec.path, params)
  if (typeof reply.body === 'string') print(reply.body)
  else if (json || asked || !spec.render) printJson(reply.body)
  else print(spec.render(reply.body))
  return 0
}

export const renderAutocomplete: Render = (body: { results: { value: string }[] }) => body.results.map((r) => r.value).join('\n')

export const renderLens: Render = (body: { results: { position: number; title?: string; link?: string; source?: string }[] }) =>
  body.results.length
    ? body.results.map((r) => `${r.position}. [${r.title || r.link}](${r.link})${r.source ? ` — ${r.source}` : ''}`).join('\n')
    : 'No visual matches.'

const renderRank: Render = (body: {
  request: { q?: string }
  domain: string
  position: number | null
  checked: number
  matches: { position: number; title: string; link: string }[]
}) => {
  const head =
    body.position == null
      ? `${body.domain} is not in the top ${body.checked} results for "${body.request.q}"`
      : `${body.domain}: position ${body.position} for "${body.request.q}" (${body.checked} results checked)`
  return [head, ...body.matches.map((m) => `${m.position}. [${m.title}](${m.link})`)].join('\n')
}

/** The verticals, in a fixed order; the positional argument of each. */
const VERTICALS: { name: VerticalName; positional: SearchLike['positional'] }[] = [
  { name: 'news', positional: 'q' },
  { name: 'images', positional: 'q' },
  { name: 'videos', positional: 'q' },
  { name: 'maps', positional: 'q' },
  { name: 'places', positional: 'q' },
  { name: 'shopping', positional: 'q' },
  { name: 'scholar', positional: 'q' },
  { name: 'patents', positional: 'q' },
  { name: 'autocomplete', positional: 'q' },
  { name: 'reviews', positional: null },
  { name: 'lens', positional: 'url' },
]

const RENDERERS: Partial<Record<VerticalName, Render>> = { autocomplete: renderAutocomplete, lens: renderLens }

export const searchCommands: Command[] = [
  searchCommand({
    name: 'search',
    summary: 'Web search (POST /v1/search): organic results, people also ask, related searches…',
    details: 'Prints the Markdown answer; --json prints the JSON one. Example: trawl search "coffee" --num 20 --country de --engine bing',
    schema: SearchParams,
    path: '/v1/search',
    positional: 'q',
    markdown: true,
  }),
  ...VERTICALS.map(({ name, positional }) => {
    const spec = VERTICAL_SPECS[name]
    const markdown = !RENDERERS[name]
    return searchCommand({
      name,
      summary: `${spec.summary} (POST /v1/${name}): ${spec.description}`,
      details: markdown ? 'Prints the Markdown answer; --json prints the JSON one.' : 'Prints a plain list; --json prints the JSON answer.',
      schema: spec.schema,
      path: `/v1/${name}`,
      positional,
      markdown,
      render: RENDERERS[name],
    })
  }),
  searchCommand({
    name: 'rank',
    summary: 'Best organic position of a domain for a query (POST /v1/rank)',
    details: 'Example: trawl rank "coffee beans" --domain example.com',
    schema: RankParams,
    path: '/v1/rank',
    positional: 'q',
    markdown: false,
    render: renderRank,
  }),
]
