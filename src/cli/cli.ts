import { parseArgs } from 'node:util'
import { loadConfig } from '../config.ts'
import { ApiError } from '../errors.ts'
import { addCredits, createAccount, createKey } from '../features/accounts/accounts.service.ts'
import { PLANS, type Plan } from '../features/accounts/plans.ts'
import { runWorker, serve } from '../main.ts'
import { openStore } from '../store/database.ts'

const USAGE = `usage: trawl <command>

  serve                                   API, dashboard and workers (what npm start runs)
  worker                                  background workers only (several may share a PostgreSQL database)
  migrate                                 apply database migrations and exit
  accounts create --email E [--password P] [--plan P] [--credits N] [--json]
  credits add --account ID --credits N [--plan P]
  keys create --account ID --name N [--credit-limit X] [--json]

Configuration comes from TRAWL_* environment variables (see README).`

async function main(argv: string[]) {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      email: { type: 'string' },
      password: { type: 'string' },
      plan: { type: 'string' },
      credits: { type: 'string' },
      account: { type: 'string' },
      name: { type: 'string' },
      'credit-limit': { type: 'string' },
      json: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  })
  const command = positionals.join(' ')
  if (values.help || !command) return print(USAGE)
  const config = loadConfig()
  if (command === 'serve') return void (await serve(config))
  if (command === 'worker') return runWorker(config)

  const store = await openStore(config.databaseUrl)
  try {
    switch (command) {
      case 'migrate':
        return print('migrations applied')
      case 'accounts create': {
        const created = await createAccount(store, {
          email: required(values.email, '--email'),
          password: values.password,
          plan: plan(values.plan) ?? 'free',
          credits: number(values.credits, '--credits') ?? 0,
        })
        if (values.json) return print(JSON.stringify(created, null, 2))
        return print(
          `account ${created.account.id} (${created.account.plan}, ${created.account.balance} credits)\nowner   ${created.owner.email}\nAPI key ${created.key.secret}\n        (shown only now; store it safely)`,
        )
      }
      case 'credits add': {
        const account = await addCredits(store, required(values.account, '--account'), number(values.credits, '--credits') ?? 0, plan(values.plan))
        return print(`account ${account.id}: ${account.balance} credits, plan ${account.plan}`)
      }
      case 'keys create': {
        const key = await createKey(store, required(values.account, '--account'), {
          name: required(values.name, '--name').slice(0, 64),
          credit_limit: number(values['credit-limit'], '--credit-limit'),
        })
        if (values.json) return print(JSON.stringify(key, null, 2))
        return print(`key ${key.id} "${key.name}": ${key.secret}\n(shown only now; store it safely)`)
      }
      default:
        throw new Error(`unknown command "${command}"\n\n${USAGE}`)
    }
  } finally {
    await store.close()
  }
}

const print = (text: string) => void process.stdout.write(`${text}\n`)

function required(value: string | undefined, flag: string): string {
  if (!value) throw new Error(`${flag} is required`)
  return value
}

function number(value: string | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined
  const n = Number(value)
  if (!Number.isFinite(n) || n < 0) throw new Error(`${flag} must be a number of credits`)
  return n
}

function plan(value: string | undefined): Plan | undefined {
  if (value === undefined) return undefined
  if (!PLANS.includes(value as Plan)) throw new Error(`--plan must be one of ${PLANS.join(', ')}`)
  return value as Plan
}

main(process.argv.slice(2)).catch((err) => {
  process.stderr.write(`trawl: ${err instanceof ApiError ? err.message : (err as Error).message}\n`)
  process.exit(1)
})
