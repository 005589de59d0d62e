import { accountCommands } from './account.commands.ts'
import { batchCommands } from './batch.commands.ts'
import type { Command } from './command.ts'
import { contextCommands } from './context.commands.ts'
import { crawlCommands } from './crawl.commands.ts'
import { demoCommands } from './demo.commands.ts'
import { monitorCommands } from './monitor.commands.ts'
import { operatorCommands } from './operator.commands.ts'
import { readingCommands } from './reading.commands.ts'
import { researchCommands } from './research.commands.ts'
import { searchCommands } from './search.commands.ts'

/** Every `trawl` command, and how argv finds one: the longest name its first words spell. */

export const COMMANDS: Command[] = [
  ...searchCommands,
  ...contextCommands,
  ...researchCommands,
  ...readingCommands,
  ...crawlCommands,
  ...batchCommands,
  ...monitorCommands,
  ...accountCommands,
  ...operatorCommands,
  ...demoCommands,
]

const byName = new Map(COMMANDS.map((c) => [c.name, c]))

/** Groups whose first word alone is not a command: `trawl monitor` lists its subcommands. */
export function groupOf(word: string): Command[] {
  return COMMANDS.filter((c) => c.name.startsWith(`${word} `))
}

/** The command spelled by argv's first one or two words, and the arguments after it. */
export function findCommand(argv: string[]): { command: Command; rest: string[] } | undefined {
  const [first, second] = argv
  if (first && second) {
    const two = byName.get(`${first} ${second}`)
    if (two) return { command: two, rest: argv.slice(2) }
  }
  const one = first ? byName.get(first) : undefined
  return one ? { command: one, rest: argv.slice(1) } : undefined
}

export const GLOBAL_USAGE = `usage: trawl <command> [options]        trawl <command> --help for its options

First try (no internet needed):
  demo                       a throwaway server answering from recorded result pages; prints a key to search with

Search (prints Markdown; --json for the JSON answer):
  search <query...>          web search; --num, --country, --engine, --include-domains…
  news | images | videos | maps | places | shopping | scholar | patents <query...>
  autocomplete <query...>    query suggestions
  reviews --place-id ID      reviews of a place (or --cid, --fid)
  lens <image-url>           visual matches of an image
  rank <query...> --domain D best position of a domain
  context <query...>         passages of the top results that answer it, within --max-tokens; --answer true: the model's answer
  research <input...>        a cited report by the server's model over several searches; research get|cancel <id>
  engines                    search providers and their health

Pages:
  webpage <url>              one page as Markdown (or --format text|html); --schema JSON: its fields as data
  extract <url...>           up to 20 pages
  map <url>                  a site's URLs
  crawl <url>                crawl a site and wait (--no-wait: print the id); crawl status|cancel <id>

Background work:
  batch <endpoint> --file F  queue many requests at half price and wait (endpoint: search, news, webpage…)
  batch status <job-id...>   jobs by id (--wait for their results)
  monitor create|list|show|update|runs|run|pause|resume|delete

Account:
  login | logout             save or forget the server address and API key
  account                    balance, limits and usage of the key

Operator (the database of TRAWL_DATABASE_URL):
  serve | worker | migrate   run the server, the workers only, or the migrations
  backup <file>              a consistent copy of the SQLite database while servers run
  mcp                        MCP tool server over stdio
  accounts create|list|show|set-password
  credits add
  keys create|list|rotate|revoke
  engines check              live self-test: which provider, route and vertical answers from this machine

Client commands reach the server at --url, TRAWL_URL or the saved login (default http://127.0.0.1:8080)
with the key from --key, TRAWL_API_KEY or the saved login. trawl --version prints the version.`
