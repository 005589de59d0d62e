import { parseArgs } from 'node:util'
import type { z } from 'zod'
import { type Command, type Flag, type FlagKind, type Flags, globalFlags, type Parsed, UsageError } from './command.ts'

/**
 * Flags derived from an endpoint's own zod schema (the one the server validates with), so a
 * command offers exactly the endpoint's parameters: `include_domains` is `--include-domains`, its
 * type decides how the text is sent, and its description is the flag's help.
 */

/** Help for parameters whose schema carries no description. */
const FALLBACK_HELP: Record<string, string> = {
  format: 'output format of the content',
  query: 'text the highlights (or the crawl order) are ranked against',
  highlights: 'passages per page ranked against --query, 0 to 10',
  max_tokens: 'trim each page to this many tokens, 100 to 100,000',
  include_links: "add the page's outbound links",
  include_images: "add the page's image URLs",
  include_subdomains: 'also follow/keep URLs on subdomains',
  ignore_query_parameters: 'URLs differing only in query string count as one',
  max_age: 'accept a cached answer up to this many seconds old, at half price',
  country: 'two-letter ISO code',
  timeout: 'seconds to wait for a page, 1 to 90 (default 50)',
}

export const kebab = (param: string) => param.replace(/_/g, '-')

interface Def {
  type: string
  innerType?: z.core.$ZodType
  in?: z.core.$ZodType
  options?: z.core.$ZodType[]
  entries?: Record<string, string>
  values?: unknown[]
}

const defOf = (t: z.core.$ZodType) => t._zod.def as unknown as Def

/** The type under optional/nullable/default/pipe wrappers, its enum values, and the first description found. */
function inspect(t: z.core.$ZodType): { type: string; entries?: string[]; description?: string; options?: string[] } {
  let node = t
  let description = (node as z.ZodType).description
  for (let def = defOf(node); def.innerType || def.in; def = defOf(node)) {
    node = (def.innerType ?? def.in) as z.core.$ZodType
    description ??= (node as z.ZodType).description
  }
  const def = defOf(node)
  if (def.type === 'union' && def.options) return { type: 'union', options: def.options.map((o) => inspect(o).type), description }
  // A set of numbers (num: 10, 20, 30, 50, 100) is a numeric flag that lists its values.
  if (def.type === 'literal' && def.values?.every((v) => typeof v === 'number')) return { type: 'number', entries: def.values.map(String), description }
  return { type: def.type, entries: def.entries ? Object.values(def.entries) : undefined, description }
}

function kindOf(info: ReturnType<typeof inspect>): FlagKind {
  switch (info.type) {
    case 'number':
    case 'int':
      return 'number'
    case 'boolean':
      return 'boolean'
    case 'array':
      return 'list'
    case 'record':
    case 'object':
      return 'json'
    case 'union':
      if (info.options?.includes('array')) return 'string-or-list'
      return info.options?.includes('boolean') ? 'string-or-boolean' : 'string'
    default:
      return 'string'
  }
}

function placeholderOf(kind: FlagKind, info: ReturnType<typeof inspect>, param: string): string | undefined {
  if (kind === 'boolean') return undefined
  if (info.entries && info.entries.join('|').length <= 40) return info.entries.join('|')
  if (kind === 'number') return 'N'
  if (kind === 'json') return 'JSON'
  if (param.endsWith('url')) return 'URL'
  if (param.endsWith('_paths')) return 'REGEX'
  if (param.endsWith('_domains')) return 'DOMAINS'
  return 'TEXT'
}

export interface SchemaFlagOptions {
  /** Parameters not offered as flags: the positional ones (q, url, urls). */
  skip?: string[]
  /** Help that replaces the schema's description. */
  help?: Record<string, string>
}

/** One flag per parameter of `schema`. */
export function schemaFlags(schema: z.ZodObject, opts: SchemaFlagOptions = {}): Flags {
  const flags: Flags = {}
  for (const [param, field] of Object.entries(schema.shape)) {
    if (opts.skip?.includes(param)) continue
    const info = inspect(field as z.core.$ZodType)
    const kind = kindOf(info)
    flags[kebab(param)] = {
      kind,
      param,
      help: opts.help?.[param] ?? info.description ?? FALLBACK_HELP[param] ?? '',
      placeholder: placeholderOf(kind, info, param),
      // Regular expressions may hold commas ({1,3}): one pattern per flag.
      split: kind === 'list' ? !param.endsWith('_paths') : undefined,
    }
  }
  return flags
}

/** node:util parseArgs options for a command: its flags, the shared ones, and --no-<flag> for request booleans. */
function parseOptions(flags: Flags) {
  const options: Record<string, { type: 'string' | 'boolean'; multiple?: boolean; short?: string }> = {}
  for (const [name, flag] of Object.entries(flags)) {
    const multiple = flag.kind === 'list' || flag.kind === 'string-or-list'
    options[name] = { type: flag.kind === 'boolean' ? 'boolean' : 'string', ...(multiple && { multiple }), ...(flag.short && { short: flag.short }) }
    if (flag.kind === 'boolean' && flag.param) options[`no-${name}`] = { type: 'boolean' }
  }
  return options
}

/** `--include_domains` reads as `--include-domains`: the API's spelling works too. */
function normaliseFlagNames(argv: string[]): string[] {
  const out: string[] = []
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string
    if (arg === '--') return [...out, ...argv.slice(i)]
    if (!arg.startsWith('--')) {
      out.push(arg)
      continue
    }
    const eq = arg.indexOf('=')
    const name = eq === -1 ? arg : arg.slice(0, eq)
    out.push(name.replace(/_/g, '-') + (eq === -1 ? '' : arg.slice(eq)))
  }
  return out
}

export function allFlags(command: Command): Flags {
  return { ...command.flags, ...globalFlags(command.globals) }
}

/** Parses a command's arguments strictly: an unknown flag or a missing value is a usage error. */
export function parseCommandArgs(command: Command, argv: string[]): Parsed {
  const flags = allFlags(command)
  try {
    const { values, positionals } = parseArgs({ args: normaliseFlagNames(argv), options: parseOptions(flags), allowPositionals: true, strict: true })
    for (const [name, flag] of Object.entries(flags)) {
      if (flag.kind === 'boolean' && flag.param && values[`no-${name}`]) {
        if (values[name]) throw new UsageError(`--${name} and --no-${name} contradict each other`)
        values[name] = false
      }
    }
    return { values: values as Parsed['values'], positionals }
  } catch (err) {
    if (err instanceof UsageError) throw err
    throw new UsageError((err as Error).message)
  }
}

/** A numeric flag as a number; anything else is sent as written, for the schema to refuse by name. */
export function numberOrText(value: string): number | string {
  return /^\s*-?\d+(\.\d+)?\s*$/.test(value) ? Number(value) : value
}

/** The request parameters set by flags, typed as the endpoint's schema expects them. */
export function paramsFrom(flags: Flags, values: Parsed['values']): Record<string, unknown> {
  const params: Record<string, unknown> = {}
  for (const [name, flag] of Object.entries(flags)) {
    const raw = values[name]
    if (!flag.param || raw === undefined) continue
    params[flag.param] = flagValue(name, flag, raw)
  }
  return params
}

function flagValue(name: string, flag: Flag, raw: string | boolean | string[]): unknown {
  const texts = Array.isArray(raw) ? raw : [String(raw)]
  const last = texts[texts.length - 1] ?? ''
  switch (flag.kind) {
    case 'boolean':
      return raw
    case 'number':
      return numberOrText(last)
    case 'list':
      return flag.split === false ? texts : texts.flatMap((t) => t.split(',')).map((t) => t.trim())
    case 'string-or-list':
      return texts.length === 1 ? last : texts
    case 'string-or-boolean':
      return last === 'true' ? true : last === 'false' ? false : last
    case 'json': {
      try {
        return JSON.parse(last)
      } catch {
        throw new UsageError(`--${name} must be JSON, e.g. --${name} '{"team":"growth"}'`)
      }
    }
    default:
      return last
  }
}

/** The command's help: usage line, summary, its flags with their help, then the shared flags. */
export function renderHelp(command: Command): string {
  const lines = [`usage: ${usageLine(command)}`, '', command.summary]
  if (command.details) lines.push('', command.details)
  const own = Object.entries(command.flags)
  if (own.length) lines.push('', 'Options:', ...flagLines(own))
  const shared = Object.entries(globalFlags(command.globals))
  lines.push('', command.globals === 'client' ? 'Connection and output:' : 'General:', ...flagLines(shared))
  return lines.join('\n')
}

export function usageLine(command: Command): string {
  return `trawl ${command.name}${command.args ? ` ${command.args}` : ''}${Object.keys(command.flags).length ? ' [options]' : ''}`
}

function flagLines(entries: [string, Flag][]): string[] {
  const left = entries.map(([name, flag]) => {
    const shown = flag.kind === 'boolean' && flag.param ? `--[no-]${name}` : `--${name}`
    const short = flag.short ? `-${flag.short}, ` : ''
    return `  ${short}${shown}${flag.placeholder ? ` ${flag.placeholder}` : ''}`
  })
  const width = Math.min(40, Math.max(...left.map((l) => l.length)) + 2)
  return entries.map(([, flag], i) => {
    const l = left[i] as string
    const repeat = flag.kind === 'list' ? (flag.split === false ? ' (repeatable)' : ' (comma-separated or repeated)') : ''
    const help = `${flag.help}${repeat}`
    return l.length >= width ? `${l}\n${' '.repeat(width)}${help}` : `${l.padEnd(width)}${help}`
  })
}
