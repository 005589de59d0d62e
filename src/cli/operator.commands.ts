import { z } from 'zod'
import { ApiError } from '../errors.ts'
import { AccountIdParams, AddCreditsBody, CreateAccountBody, CreateKeyBody, PasswordBody } from '../features/accounts/accounts.schema.ts'
import type { KeyDeps } from '../features/dashboard/keys.service.ts'
import type { SessionUser } from '../features/dashboard/sessions.service.ts'
import { parseWith } from '../http/parse-input.ts'
import type { Store } from '../store/database.ts'
import { type Command, type Flags, type Parsed, positionalsExactly, str, UsageError } from './command.ts'
import { resolveConnection } from './config-file.ts'
import { paramsFrom, schemaFlags } from './flags.ts'
import { credits, fields, print, printJson, table } from './output.ts'

/**
 * The operator's commands: the server itself (serve, worker, migrate), the stdio MCP server, and
 * accounts, credits and keys straight in the database of TRAWL_DATABASE_URL. Input goes through the
 * operator API's own zod schemas, so the CLI accepts exactly what /admin/v1 accepts, with its messages.
 * Server modules are imported only when a command needs them, so client commands start fast.
 */

/** Flags checked with the operator API's schema; its messages name the field (email, credits, credit_limit). */
function validate<S extends z.ZodType>(schema: S, input: Record<string, unknown>): z.infer<S> {
  const defined = Object.fromEntries(Object.entries(input).filter(([, v]) => v !== undefined))
  try {
    return parseWith(schema, defined)
  } catch (err) {
    throw err instanceof ApiError ? new UsageError(err.message) : err
  }
}

function required(values: Parsed['values'], flag: string): string {
  const value = str(values, flag)
  if (!value) throw new UsageError(`--${flag} is required`)
  return value
}

/** An account or key id, checked as the operator API checks its path parameter. */
const idOf = (id: string) => validate(AccountIdParams, { id }).id

/** `--account` takes an account id or the email of one of its users, as `accounts show` does. */
async function accountIdOf(store: Store, given: string): Promise<string> {
  if (!given.includes('@')) return given
  const { findUserByEmail } = await import('../features/accounts/accounts.store.ts')
  const user = await findUserByEmail(store.db, given.trim().toLowerCase())
  if (!user) throw new ApiError('not_found', `no user has the email ${given}`)
  return user.account_id
}

/**
 * Opens the database of TRAWL_DATABASE_URL, saying which on stderr first: a command run without the
 * server's TRAWL_DATABASE_URL writes to the default SQLite file, and the key it prints then gets 401
 * from a server on PostgreSQL. The line names the trap so it is seen before the key is tried.
 */
async function withStore<T>(work: (store: Store) => Promise<T>): Promise<T> {
  const { loadConfig } = await import('../config.ts')
  const { openStore, describeDatabase } = await import('../store/database.ts')
  const url = loadConfig().databaseUrl
  const source = process.env.TRAWL_DATABASE_URL ? 'TRAWL_DATABASE_URL' : "the default: TRAWL_DATABASE_URL is unset; use the server's"
  process.stderr.write(`trawl: database ${describeDatabase(url)} (${source})\n`)
  const store = await openStore(url)
  try {
    return await work(store)
  } finally {
    await store.close()
  }
}

/**
 * Key changes go through the dashboard's key service acting as the account owner, so rotation and
 * revocation do exactly what the owner's own clicks do (revoking pauses the key's monitors). Running
 * servers drop the old secret at once when a signal reaches them (Redis or PostgreSQL; src/signals),
 * else within TRAWL_KEY_CACHE_MS.
 */
async function asOwner<T>(store: Store, accountId: string, work: (deps: KeyDeps, user: SessionUser) => Promise<T>): Promise<T> {
  const { findOwner } = await import('../features/accounts/accounts.store.ts')
  const { KeyCache } = await import('../http/auth.ts')
  const { keyLookup } = await import('../features/accounts/accounts.service.ts')
  const { openPublisher } = await import('../signals/open-signals.ts')
  const { loadConfig } = await import('../config.ts')
  const owner = await findOwner(store.db, accountId)
  const signals = await openPublisher(loadConfig(), store, { warn: (_obj, msg) => process.stderr.write(`trawl: ${msg}\n`) })
  try {
    return await work({ store, keys: new KeyCache(keyLookup(store), 0, signals) }, { id: owner.id, email: owner.email, role: 'owner', accountId })
  } finally {
    // A key command's signal to the running servers is sent before the store closes.
    await signals.close()
  }
}

async function accountOfKey(store: Store, keyId: string): Promise<string> {
  const { findKeyById } = await import('../features/accounts/accounts.store.ts')
  const key = await findKeyById(store.db, keyId)
  if (!key) throw new ApiError('not_found', `key ${keyId} does not exist`)
  return key.account_id
}

const accountFlags: Flags = schemaFlags(CreateAccountBody)
const accountFlag: Flags = { account: { kind: 'string', placeholder: 'ID|EMAIL', help: "the account: its id or a user's email" } }
const creditFlags: Flags = {
  ...accountFlag,
  ...schemaFlags(AddCreditsBody, { help: { credits: 'credits to add (more than 0)', plan: 'raise the plan to at least this one' } }),
}
const keyFlags: Flags = {
  ...accountFlag,
  ...schemaFlags(CreateKeyBody, {
    help: { name: 'up to 64 characters', credit_limit: 'monthly credit limit of the key', user_id: 'the member the key belongs to (default: the owner)' },
  }),
}

const ListQuery = z.strictObject({
  limit: z
    .number({ error: 'limit must be an integer between 1 and 1,000' })
    .int('limit must be an integer between 1 and 1,000')
    .min(1, 'limit must be between 1 and 1,000')
    .max(1000, 'limit must be between 1 and 1,000')
    .default(100),
  offset: z
    .number({ error: 'offset must be an integer of 0 or more' })
    .int('offset must be an integer of 0 or more')
    .min(0, 'offset must be 0 or more')
    .default(0),
})
const listFlags: Flags = {
  limit: { kind: 'number', param: 'limit', placeholder: 'N', help: 'accounts to list, 1 to 1,000 (default 100)' },
  offset: { kind: 'number', param: 'offset', placeholder: 'N', help: 'skip this many (oldest first)' },
}

/**
 * `accounts set-password` without --password: asked twice at a terminal, not echoed; else read
 * from stdin (scripts: all of it, one trailing newline removed). Either way it stays out of the
 * shell history and the process list.
 */
async function passwordNotOnTheCommandLine(): Promise<string> {
  if (process.stdin.isTTY) {
    const [first, again] = await askHidden(['New password: ', 'Same password again: '])
    if (!first) throw new UsageError('no password given')
    if (again !== first) throw new UsageError('the two passwords differ; nothing was changed')
    return first
  }
  const chunks: Buffer[] = []
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer)
  const text = Buffer.concat(chunks)
    .toString('utf8')
    .replace(/\r?\n$/, '')
  if (!text) throw new UsageError('no password: pass --password or pipe it on stdin')
  return text
}

/**
 * Lines read at the terminal with echo off: readline (raw mode, so it does the echoing) writes to
 * a stream that drops everything; the prompts go to stderr. One interface for all the lines, read
 * through its iterator, so lines typed ahead are not lost between prompts. Ctrl-C or Ctrl-D cancels.
 */
async function askHidden(prompts: string[]): Promise<string[]> {
  const [{ createInterface }, { Writable }] = await Promise.all([import('node:readline'), import('node:stream')])
  const muted = new Writable({ write: (_chunk, _encoding, done) => done() })
  const rl = createInterface({ input: process.stdin, output: muted, terminal: true })
  const canceled = new Promise<never>((_, reject) => rl.once('SIGINT', () => reject(new UsageError('canceled; nothing was changed'))))
  const lines = rl[Symbol.asyncIterator]()
  const answers: string[] = []
  try {
    for (const prompt of prompts) {
      process.stderr.write(prompt)
      const line = await Promise.race([lines.next(), canceled])
      process.stderr.write('\n')
      if (line.done) throw new UsageError('no password given')
      answers.push(line.value)
    }
    return answers
  } finally {
    rl.close()
  }
}

const SECRET_NOTE = '(shown only now; store it safely)'

export const operatorCommands: Command[] = [
  {
    name: 'serve',
    summary: 'Run the API, the dashboard and the background workers (what npm start runs)',
    details:
      'Configuration comes from TRAWL_* environment variables (README "Configuration"). --processes N runs N server processes on one port (needs TRAWL_REDIS_URL or PostgreSQL; docs/deploy.md).',
    flags: { processes: { kind: 'number', placeholder: 'N', help: 'server processes sharing the port (default 1)' } },
    globals: 'none',
    async run(parsed) {
      positionalsExactly(parsed, [])
      const [{ loadConfig }, { serve }, cluster] = await Promise.all([import('../config.ts'), import('../main.ts'), import('../cluster.ts')])
      const processes = Number(str(parsed.values, 'processes') ?? 1)
      if (!Number.isInteger(processes) || processes < 1 || processes > cluster.MAX_PROCESSES) {
        throw new UsageError(`--processes must be an integer from 1 to ${cluster.MAX_PROCESSES}`)
      }
      const config = loadConfig()
      const problem = cluster.clusterProblem(config, processes)
      if (problem) throw new UsageError(problem)
      await (processes > 1 ? cluster.serveCluster(config, processes) : serve(config))
      return 'keep-running'
    },
  },
  {
    name: 'worker',
    summary: 'Run the background workers only (several may share a PostgreSQL database)',
    details: 'Pair it with TRAWL_WORKERS=false on the API processes.',
    flags: {},
    globals: 'none',
    async run(parsed) {
      positionalsExactly(parsed, [])
      const [{ loadConfig }, { runWorker }] = await Promise.all([import('../config.ts'), import('../main.ts')])
      await runWorker(loadConfig())
      return 'keep-running'
    },
  },
  {
    name: 'engines check',
    summary: 'Send one live query per engine, route and vertical from this machine, and print what answered',
    details:
      'Runs in this process with the server configuration (TRAWL_* variables: proxies, TRAWL_UPSTREAM_HOSTS, TRAWL_BROWSER, API keys); nothing is billed. Exits 1 when no web search route of the primary engine answered with results. The same check runs on a server as POST /admin/v1/engines/check.',
    flags: {
      q: { kind: 'string', placeholder: 'QUERY', help: 'the query sent everywhere (default coffee)' },
      engine: { kind: 'string', placeholder: 'NAMES', help: 'comma-separated providers to check (default all)' },
      vertical: { kind: 'string', placeholder: 'NAMES', help: 'comma-separated verticals to check (default all)' },
    },
    globals: 'operator',
    async run(parsed) {
      positionalsExactly(parsed, [])
      const list = (flag: string) =>
        str(parsed.values, flag)
          ?.split(',')
          .map((s) => s.trim())
          .filter(Boolean)
      const { checkEnginesHere } = await import('../features/engines/engines.check.local.ts')
      const report = await checkEnginesHere({ q: str(parsed.values, 'q'), engines: list('engine'), verticals: list('vertical') }).catch((err) => {
        throw err instanceof ApiError ? new UsageError(err.message) : err
      })
      if (parsed.values.json) printJson(report)
      else {
        const rows = report.rows.map((r) => [
          r.engine,
          r.vertical,
          r.route,
          r.status ?? '-',
          r.verdict,
          r.results,
          r.parse_quality ?? '-',
          `${r.latency_ms} ms`,
          r.reason ?? '',
        ])
        print(table(['engine', 'vertical', 'route', 'HTTP', 'verdict', 'results', 'parse', 'latency', 'why'], rows))
        for (const g of report.gates) {
          const mean = g.mean_solve_ms === null ? '' : `, ${g.mean_solve_ms} ms a solve on average`
          print(`${g.gate} proof of work: ${g.solved} solved, ${g.failed} not passed${mean}`)
        }
        if (report.primary_ok !== null) {
          print(
            report.primary_ok
              ? `\n${report.primary} answers web search from this machine.`
              : `\n${report.primary} has no working web search route from this machine.`,
          )
        }
      }
      return report.primary_ok === false ? 1 : 0
    },
  },
  {
    name: 'migrate',
    summary: 'Apply the database migrations and exit (every start applies them too)',
    flags: {},
    globals: 'none',
    async run(parsed) {
      positionalsExactly(parsed, [])
      await withStore(async () => {})
      print('migrations applied')
      return 0
    },
  },
  {
    name: 'mcp',
    summary: 'MCP tool server over stdio: a client of a Trawl server (docs/mcp.md)',
    details:
      'Like every client command, the key comes from --key, then TRAWL_API_KEY, then the saved trawl login; the server from --url, TRAWL_URL, the saved login, or http://127.0.0.1:8080.',
    flags: {},
    globals: 'client',
    async run(parsed) {
      positionalsExactly(parsed, [])
      const connection = resolveConnection(parsed.values)
      const { runMcpStdio } = await import('../features/mcp/mcp.stdio.ts')
      await runMcpStdio(connection)
      return 'keep-running'
    },
  },
  {
    name: 'accounts create',
    summary: 'Create an account with its owner and first API key (as POST /admin/v1/accounts)',
    flags: accountFlags,
    globals: 'operator',
    async run(parsed) {
      positionalsExactly(parsed, [])
      required(parsed.values, 'email')
      const input = validate(CreateAccountBody, paramsFrom(accountFlags, parsed.values))
      const { createAccount } = await import('../features/accounts/accounts.service.ts')
      const created = await withStore((store) => createAccount(store, input))
      if (parsed.values.json) printJson(created)
      else
        print(
          `account ${created.account.id} (${created.account.plan}, ${created.account.balance} credits)\nowner   ${created.owner.email}\nAPI key ${created.key.secret}\n        ${SECRET_NOTE}`,
        )
      return 0
    },
  },
  {
    name: 'accounts list',
    summary: 'Every account, oldest first, with its owner',
    flags: listFlags,
    globals: 'operator',
    async run(parsed) {
      positionalsExactly(parsed, [])
      const page = validate(ListQuery, paramsFrom(listFlags, parsed.values))
      const { listAccounts } = await import('../features/accounts/accounts.service.ts')
      const accounts = await withStore((store) => listAccounts(store, page))
      if (parsed.values.json) printJson({ accounts })
      else if (!accounts.length) print('No accounts.')
      else
        print(
          table(
            ['id', 'owner', 'plan', 'balance', 'created'],
            accounts.map((a) => [a.id, a.owner_email, a.plan, a.balance, a.created_at]),
          ),
        )
      return 0
    },
  },
  {
    name: 'accounts show',
    summary: 'One account (as GET /admin/v1/accounts/{id}) with its users and live keys; by id or by a user’s email',
    args: '<id|email>',
    flags: {},
    globals: 'operator',
    async run(parsed) {
      const [given] = positionalsExactly(parsed, ['<id|email>']) as [string]
      const [service, keysService] = await Promise.all([import('../features/accounts/accounts.service.ts'), import('../features/dashboard/keys.service.ts')])
      const shown = await withStore(async (store) => {
        const id = await accountIdOf(store, idOf(given))
        const account = await service.getAccount(store, id)
        const users = await service.accountUsers(store, id)
        const { keys } = await asOwner(store, id, keysService.listKeys)
        return { account, users, keys }
      })
      if (parsed.values.json) {
        printJson(shown)
        return 0
      }
      const a = shown.account
      print(
        [
          fields([
            ['id', a.id],
            ['plan', a.plan],
            ['balance', credits(a.balance)],
            ['rate limit', `${a.rate_limit_rps} requests/s`],
            ['spend cap', a.monthly_spend_cap == null ? 'none' : `${credits(a.monthly_spend_cap)} a month`],
            ['daily limit', a.daily_limit == null ? 'none' : credits(a.daily_limit)],
            ['webhook', a.webhook_url ?? 'none'],
            ['created', a.created_at],
          ]),
          '',
          table(
            ['user', 'email', 'role', 'created'],
            shown.users.map((u) => [u.id, u.email, u.role, u.created_at]),
          ),
          '',
          shown.keys.length ? keyTable(shown.keys) : 'No live keys.',
        ].join('\n'),
      )
      return 0
    },
  },
  {
    name: 'accounts set-password',
    summary: "Set or reset a user's password: the account's owner by account id, or the user of an email; signs that user out everywhere",
    details:
      'Without --password it is asked for twice at a terminal (not shown as typed), or read from stdin when stdin is not a terminal (all of it, one trailing newline removed), so it stays out of the shell history and the process list: printf %s "$PW" | trawl accounts set-password --account ID. 8 to 256 characters, as account creation takes it. Every dashboard session of the user ends.',
    flags: {
      account: { kind: 'string', placeholder: 'ID|EMAIL', help: "an account id (its owner) or a user's email" },
      password: { kind: 'string', placeholder: 'P', help: 'the new password (default: asked at a terminal, else read from stdin)' },
    },
    globals: 'operator',
    async run(parsed) {
      positionalsExactly(parsed, [])
      const given = idOf(required(parsed.values, 'account'))
      const password = str(parsed.values, 'password') ?? (await passwordNotOnTheCommandLine())
      const input = validate(PasswordBody, { password })
      const { setUserPassword, userByAccountOrEmail } = await import('../features/accounts/accounts.service.ts')
      const user = await withStore(async (store) => {
        const user = await userByAccountOrEmail(store, given)
        await setUserPassword(store, user.id, input.password)
        return user
      })
      if (parsed.values.json) printJson({ account_id: user.account_id, user_id: user.id, email: user.email, password_set: true })
      else print(`password set for ${user.email} (account ${user.account_id}); their dashboard sessions were signed out`)
      return 0
    },
  },
  {
    name: 'credits add',
    summary: 'Add a credit pack: credits, a plan raise (never lowered), no daily limit (as POST /admin/v1/accounts/{id}/credits)',
    flags: creditFlags,
    globals: 'operator',
    async run(parsed) {
      positionalsExactly(parsed, [])
      const id = idOf(required(parsed.values, 'account'))
      required(parsed.values, 'credits')
      const input = validate(AddCreditsBody, paramsFrom(creditFlags, parsed.values))
      const { addCredits } = await import('../features/accounts/accounts.service.ts')
      const account = await withStore(async (store) => addCredits(store, await accountIdOf(store, id), input.credits, input.plan))
      if (parsed.values.json) printJson(account)
      else print(`account ${account.id}: ${account.balance} credits, plan ${account.plan}`)
      return 0
    },
  },
  {
    name: 'keys create',
    summary: 'Create an API key (as POST /admin/v1/accounts/{id}/keys)',
    flags: keyFlags,
    globals: 'operator',
    async run(parsed) {
      positionalsExactly(parsed, [])
      const id = idOf(required(parsed.values, 'account'))
      required(parsed.values, 'name')
      const input = validate(CreateKeyBody, paramsFrom(keyFlags, parsed.values))
      const { createKey } = await import('../features/accounts/accounts.service.ts')
      const key = await withStore(async (store) => createKey(store, await accountIdOf(store, id), input))
      if (parsed.values.json) printJson(key)
      else print(`key ${key.id} "${key.name}": ${key.secret}\n${SECRET_NOTE}`)
      return 0
    },
  },
  {
    name: 'keys list',
    summary: "An account's live keys with this month's usage",
    flags: accountFlag,
    globals: 'operator',
    async run(parsed) {
      positionalsExactly(parsed, [])
      const id = idOf(required(parsed.values, 'account'))
      const { listKeys } = await import('../features/dashboard/keys.service.ts')
      const { getAccountRow } = await import('../features/accounts/accounts.service.ts')
      const { keys } = await withStore(async (store) => {
        const accountId = await accountIdOf(store, id)
        await getAccountRow(store, accountId)
        return asOwner(store, accountId, listKeys)
      })
      if (parsed.values.json) printJson({ keys })
      else print(keys.length ? keyTable(keys) : 'No live keys.')
      return 0
    },
  },
  {
    name: 'keys rotate',
    summary: 'Give a key a new secret: id, name, limit and usage stay; the old secret stops working',
    details:
      'Running servers stop accepting the old secret at once with Redis or PostgreSQL, else within their key cache time (TRAWL_KEY_CACHE_MS, 30 s by default).',
    args: '<key-id>',
    flags: {},
    globals: 'operator',
    async run(parsed) {
      const [given] = positionalsExactly(parsed, ['<key-id>']) as [string]
      const keyId = idOf(given)
      const { rotateKey } = await import('../features/dashboard/keys.service.ts')
      const key = await withStore(async (store) => asOwner(store, await accountOfKey(store, keyId), (deps, user) => rotateKey(deps, user, keyId)))
      if (parsed.values.json) printJson(key)
      else print(`key ${key.id} "${key.name}": ${key.secret}\n${SECRET_NOTE}`)
      return 0
    },
  },
  {
    name: 'keys revoke',
    summary: 'Revoke a key for good; the monitors billed on it are paused',
    details: 'Running servers refuse the key at once with Redis or PostgreSQL, else within their key cache time (TRAWL_KEY_CACHE_MS, 30 s by default).',
    args: '<key-id>',
    flags: {},
    globals: 'operator',
    async run(parsed) {
      const [given] = positionalsExactly(parsed, ['<key-id>']) as [string]
      const keyId = idOf(given)
      const { revokeKey } = await import('../features/dashboard/keys.service.ts')
      await withStore(async (store) => asOwner(store, await accountOfKey(store, keyId), (deps, user) => revokeKey(deps, user, keyId)))
      if (parsed.values.json) printJson({ id: keyId, revoked: true })
      else print(`key ${keyId} revoked`)
      return 0
    },
  },
  {
    name: 'backup',
    summary: 'Copy the SQLite database into a new file, whole and consistent while servers run (PostgreSQL: pg_dump)',
    details:
      'SQLite\'s online backup, every page in one read transaction: servers keep writing meanwhile, and the copy holds every write committed before it began, those still in the -wal file included. Nothing is migrated. The file must not exist; it is made 0600 (it holds password and key hashes and the storage key). Restoring: docs/self-hosting.md "Backups".',
    args: '<file>',
    flags: {},
    globals: 'none',
    async run(parsed) {
      const [file] = positionalsExactly(parsed, ['<file>']) as [string]
      const [{ loadConfig }, { backupSqlite, describeDatabase }, { realpathSync }] = await Promise.all([
        import('../config.ts'),
        import('../store/database.ts'),
        import('node:fs'),
      ])
      const url = loadConfig().databaseUrl
      process.stderr.write(`trawl: database ${describeDatabase(url)}\n`)
      await backupSqlite(url, file)
      print(`backup of ${describeDatabase(url)} written to ${realpathSync(file)}`)
      return 0
    },
  },
]

interface KeyView {
  id: string
  name: string
  prefix: string
  credit_limit: number | null
  credits_used_month: number
  last_used_at: string | null
  created_at: string
}

function keyTable(keys: KeyView[]): string {
  return table(
    ['key', 'name', 'prefix', 'limit', 'used this month', 'last used', 'created'],
    keys.map((k) => [k.id, k.name, k.prefix, k.credit_limit ?? 'none', k.credits_used_month, k.last_used_at, k.created_at]),
  )
}
