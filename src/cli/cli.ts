import { ApiError } from '../errors.ts'
import { ApiCallError, ConnectionError, describeApiError, VERSION } from './client.ts'
import { type Command, UsageError } from './command.ts'
import { parseCommandArgs, renderHelp, usageLine } from './flags.ts'
import { findCommand, GLOBAL_USAGE, groupOf } from './registry.ts'

/**
 * The `trawl` command: finds the command argv names, parses its flags strictly, and maps what
 * happens to exit codes: 0 done, 1 the API (or the database) refused or the server was unreachable,
 * 2 a mistake in the command line (with the command's usage), 130 interrupted while waiting.
 */

const isHelp = (arg: string) => arg === '--help' || arg === '-h'

/** `--help` anywhere before a `--` asks for help, even next to flags that would not parse. */
const asksHelp = (args: string[]) => {
  const end = args.indexOf('--')
  return (end === -1 ? args : args.slice(0, end)).some(isHelp)
}

function groupUsage(word: string, commands: Command[]): string {
  const width = Math.max(...commands.map((c) => usageLine(c).length)) + 2
  return [`usage: trawl ${word} <command>`, '', ...commands.map((c) => `  ${usageLine(c).padEnd(width)}${c.summary}`)].join('\n')
}

async function main(argv: string[]): Promise<number | 'keep-running'> {
  const [first = ''] = argv
  if (!first || isHelp(first)) return print(GLOBAL_USAGE)
  if (first === '--version' || first === '-V' || first === 'version') return print(VERSION)
  if (first === 'help') return help(argv.slice(1))

  const found = findCommand(argv)
  if (!found) {
    const group = groupOf(first)
    if (group.length) {
      if (asksHelp(argv.slice(1))) return print(groupUsage(first, group))
      const sub = argv[1]
      const what = sub === undefined || sub.startsWith('-') ? 'missing a command' : `"${sub}" is not a command`
      throw new CommandLineError(`${first}: ${what}`, groupUsage(first, group))
    }
    throw new CommandLineError(first.startsWith('-') ? `unknown option '${first}' before the command` : `unknown command "${first}"`, GLOBAL_USAGE)
  }
  const { command, rest } = found
  if (asksHelp(rest)) return print(renderHelp(command))
  try {
    const result = await command.run(parseCommandArgs(command, rest))
    return result ?? 0
  } catch (err) {
    if (err instanceof UsageError) throw new CommandLineError(err.message, `usage: ${usageLine(command)}\n(trawl ${command.name} --help lists the options)`)
    throw err
  }
}

function help(words: string[]): number {
  const found = findCommand(words)
  if (found && found.rest.length === 0) return print(renderHelp(found.command))
  const group = words.length === 1 ? groupOf(words[0] as string) : []
  if (group.length) return print(groupUsage(words[0] as string, group))
  if (!words.length) return print(GLOBAL_USAGE)
  throw new CommandLineError(`no command "${words.join(' ')}"`, GLOBAL_USAGE)
}

/** A usage error with the usage to show under it. */
class CommandLineError extends Error {
  constructor(
    message: string,
    readonly usage: string,
  ) {
    super(message)
  }
}

function print(text: string): number {
  process.stdout.write(`${text}\n`)
  return 0
}

/** Exits once stdout has been written out: a pipe would otherwise lose the tail of a long answer. */
function exit(code: number) {
  process.exitCode = code
  process.stdout.write('', () => process.exit(code))
}

// A reader that stops early (`trawl search x | head -1`) is not an error.
process.stdout.on('error', (err: NodeJS.ErrnoException) => {
  if (err.code === 'EPIPE') process.exit(0)
  throw err
})

main(process.argv.slice(2)).then(
  (result) => {
    if (result !== 'keep-running') exit(result)
  },
  (err) => {
    if (err instanceof CommandLineError) {
      process.stderr.write(`trawl: ${err.message}\n\n${err.usage}\n`)
      return exit(2)
    }
    if (err instanceof UsageError) {
      process.stderr.write(`trawl: ${err.message}\n\n${GLOBAL_USAGE}\n`)
      return exit(2)
    }
    if (err instanceof ApiCallError) process.stderr.write(`trawl: ${describeApiError(err)}\n`)
    else if (err instanceof ApiError) process.stderr.write(`trawl: ${err.code}: ${err.message}\n`)
    else if (err instanceof ConnectionError) process.stderr.write(`trawl: ${err.message}\n`)
    else process.stderr.write(`trawl: ${(err as Error)?.message ?? String(err)}\n`)
    exit(1)
  },
)
