/**
 * What every `trawl` command is: a name (one or two words), its flags, and what it does. The
 * dispatcher (cli.ts) parses argv against the flags, prints help, and turns errors into exit codes.
 */

/** A mistake in the command line: its message and the command's usage on stderr, exit code 2. */
export class UsageError extends Error {}

/**
 * How a flag's text becomes a request value. `number`: numeric text becomes a number, anything else
 * is sent as written so the server refuses it by name; `list`: repeatable, and split at commas unless
 * `split` is false; `string-or-list`: one value as written, several as a list (engine); `json`: a JSON object.
 */
/** string-or-boolean: a parameter that takes true, false or a word (answer: true|basic|advanced). */
export type FlagKind = 'string' | 'number' | 'boolean' | 'list' | 'string-or-list' | 'string-or-boolean' | 'json'

export interface Flag {
  kind: FlagKind
  help: string
  /** The request parameter it sets (snake_case); absent for the CLI's own flags (--file, --wait). */
  param?: string
  /** Shown after the flag in help: N, URL, json|compact|markdown… */
  placeholder?: string
  /** Lists only: split each value at commas (false for regular expressions). */
  split?: boolean
  short?: string
}

/** Flags by name, without the leading dashes (kebab-case). */
export type Flags = Record<string, Flag>

export type FlagValue = string | boolean | string[] | undefined

export interface Parsed {
  values: Record<string, FlagValue>
  positionals: string[]
}

/** Which shared flags a command takes besides --help. */
export type Globals = 'client' | 'operator' | 'none'

/** What `run` may ask of the dispatcher: an exit code, or to let a server or worker keep running. */
export type RunResult = number | 'keep-running' | undefined

export interface Command {
  /** `search`, `monitor create`, `accounts list`. */
  name: string
  summary: string
  /** What follows the name in the usage line, e.g. `<query...>`. */
  args?: string
  /** More help, printed after the summary. */
  details?: string
  flags: Flags
  globals: Globals
  run(parsed: Parsed): Promise<RunResult>
}

export const CLIENT_FLAGS: Flags = {
  url: { kind: 'string', placeholder: 'URL', help: 'Trawl server address (default: TRAWL_URL, then `trawl login`, then http://127.0.0.1:8080)' },
  key: { kind: 'string', placeholder: 'KEY', help: 'API key (default: TRAWL_API_KEY, then `trawl login`)' },
  json: { kind: 'boolean', help: "print the API's JSON answer instead of Markdown/text" },
}

export const OPERATOR_FLAGS: Flags = {
  json: { kind: 'boolean', help: 'print JSON' },
}

/** The flags of the commands that wait for a crawl or batch. */
export const WAIT_FLAGS: Flags = {
  quiet: { kind: 'boolean', short: 'q', help: 'no progress on stderr' },
}

export const HELP_FLAG: Flags = { help: { kind: 'boolean', short: 'h', help: 'show this help' } }

export function globalFlags(globals: Globals): Flags {
  if (globals === 'client') return { ...CLIENT_FLAGS, ...HELP_FLAG }
  if (globals === 'operator') return { ...OPERATOR_FLAGS, ...HELP_FLAG }
  return HELP_FLAG
}

/** A string flag's value (the last one when repeated). */
export function str(values: Parsed['values'], name: string): string | undefined {
  const v = values[name]
  if (Array.isArray(v)) return v[v.length - 1]
  return typeof v === 'string' ? v : undefined
}

/** Exactly `n` positionals (ids), or a usage error naming what is missing. */
export function positionalsExactly(parsed: Parsed, names: string[]): string[] {
  const { positionals } = parsed
  if (positionals.length < names.length) throw new UsageError(`missing ${names.slice(positionals.length).join(' ')}`)
  if (positionals.length > names.length) throw new UsageError(`unexpected argument "${positionals[names.length]}"`)
  return positionals
}
