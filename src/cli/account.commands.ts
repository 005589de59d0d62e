import type { AccountResponse as Account } from '../features/accounts/account.response.ts'
import type { EngineStatus as Engine } from '../features/engines/engines.response.ts'
import { callApi } from './client.ts'
import { type Command, type Parsed, positionalsExactly, str, UsageError } from './command.ts'
import { configPath, removeLogin, resolveConnection, resolveUrl, writeLogin } from './config-file.ts'
import { credits, fields, print, printJson, table } from './output.ts'

/** `trawl account`, `trawl engines`, and `trawl login` / `trawl logout` (the saved server and key). */

function describeAccount(a: Account): string {
  return fields([
    ['plan', a.plan],
    ['balance', credits(a.balance)],
    ['rate limit', `${a.rate_limit_rps} requests/s`],
    ['spend cap', a.monthly_spend_cap == null ? 'none' : `${credits(a.monthly_spend_cap)} a month`],
    ['this month', `${credits(a.month.credits)}, ${a.month.requests} request${a.month.requests === 1 ? '' : 's'}`],
    ['key', `${a.key.name} (${a.key.id})`],
    ['key limit', a.key.credit_limit == null ? 'none' : `${credits(a.key.credit_limit)} a month`],
    ['key usage', `${credits(a.key.credits_used_month)} this month`],
  ])
}

/** The key to save: --key, TRAWL_API_KEY, a prompt that does not echo (terminal), or the first line of stdin. */
async function keyToSave(values: Parsed['values']): Promise<string> {
  const given = str(values, 'key') ?? process.env.TRAWL_API_KEY
  if (given) return given.trim()
  if (process.stdin.isTTY) return promptHidden('API key: ')
  const chunks: Buffer[] = []
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer)
  const key = Buffer.concat(chunks).toString('utf8').split(/\r?\n/)[0]?.trim()
  if (!key) throw new UsageError('no API key: pass --key, set TRAWL_API_KEY, or pipe the key on stdin')
  return key
}

function promptHidden(question: string): Promise<string> {
  // Looked up here: the server, bundled with the CLI, never prompts (docs/performance.md).
  const { createInterface } = process.getBuiltinModule('node:readline')
  const rl = createInterface({ input: process.stdin, output: process.stderr, terminal: true })
  const muted = rl as unknown as { _writeToOutput: (s: string) => void }
  muted._writeToOutput = (s: string) => {
    if (s.startsWith(question)) process.stderr.write(question)
  }
  return new Promise((resolve) =>
    rl.question(question, (answer) => {
      rl.close()
      process.stderr.write('\n')
      resolve(answer.trim())
    }),
  )
}

export const accountCommands: Command[] = [
  {
    name: 'account',
    summary: 'Balance, limits and this month’s usage of the key (GET /v1/account, free)',
    flags: {},
    globals: 'client',
    async run(parsed) {
      positionalsExactly(parsed, [])
      const { body } = await callApi<Account>(resolveConnection(parsed.values), 'GET', '/v1/account')
      if (parsed.values.json) printJson(body)
      else print(describeAccount(body))
      return 0
    },
  },
  {
    name: 'engines',
    summary:
      'Search providers: verticals and health (GET /v1/engines, free). `trawl engines check` is the live self-test of every provider, route and vertical from this machine (operator; see its --help).',
    flags: {},
    globals: 'client',
    async run(parsed) {
      positionalsExactly(parsed, [])
      const { body } = await callApi<{ engines: Engine[] }>(resolveConnection(parsed.values), 'GET', '/v1/engines')
      if (parsed.values.json) printJson(body)
      else {
        const rows = body.engines.map((e) => [
          `${e.name}${e.primary ? ' (primary)' : ''}`,
          e.state,
          [e.auto && 'auto', e.consensus && 'consensus'].filter(Boolean).join(', '),
          e.verticals.join(', '),
        ])
        print(table(['engine', 'state', 'member of', 'verticals'], rows))
      }
      return 0
    },
  },
  {
    name: 'login',
    summary: 'Check a server address and API key, and save them for the other commands',
    details:
      'The key comes from --key, TRAWL_API_KEY, a prompt on a terminal, or the first line of stdin. It is checked with GET /v1/account, then saved (mode 0600) to ~/.config/trawl/config.json ($XDG_CONFIG_HOME/trawl/config.json when set; TRAWL_CONFIG overrides the path).',
    flags: {},
    globals: 'client',
    async run(parsed) {
      positionalsExactly(parsed, [])
      const url = resolveUrl(parsed.values)
      const key = await keyToSave(parsed.values)
      const { body } = await callApi<Account>({ url, key }, 'GET', '/v1/account')
      const path = configPath()
      writeLogin(path, { url, key })
      if (parsed.values.json) printJson({ url, config: path, account: body })
      else print(`Logged in to ${url} with key "${body.key.name}" (plan ${body.plan}, ${credits(body.balance)}).\nSaved to ${path}, readable only by you.`)
      return 0
    },
  },
  {
    name: 'logout',
    summary: 'Forget the saved server address and key (deletes the file trawl login wrote)',
    flags: {},
    globals: 'none',
    async run(parsed) {
      positionalsExactly(parsed, [])
      const path = configPath()
      print(removeLogin(path) ? `Removed ${path}.` : `Not logged in (no ${path}).`)
      return 0
    },
  },
]
