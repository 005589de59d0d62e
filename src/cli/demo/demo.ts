import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { FastifyInstance } from 'fastify'
import { type Config, loadConfig } from '../../config.ts'
import { CreateAccountBody } from '../../features/accounts/accounts.schema.ts'
import { createAccount } from '../../features/accounts/accounts.service.ts'
import { serve } from '../../main.ts'
import { openStore } from '../../store/database.ts'
import { startRecordedEngines } from './recorded-engines.ts'

/**
 * `trawl demo`: `serve` over a throwaway SQLite database, with every engine answered from recorded
 * result pages by an in-process server on 127.0.0.1, and an account made for the person trying it.
 * Nothing reaches a search engine, so it works without internet (docs/cli.md "Trying it: trawl demo").
 */

/** On every response of the demo server, so no answer can pass for a live one. */
export const DEMO_HEADER = 'Trawl-Demo'
export const DEMO_HEADER_VALUE = 'recorded pages'
export const DEMO_EMAIL = 'demo@example.com'
const DEMO_CREDITS = 1000

/**
 * Settings that would reach outside the throwaway setup are dropped: a shared cache or engine health
 * (Redis), proxies that cannot reach 127.0.0.1, and engines asked through their APIs (Brave's, a
 * SearXNG instance, Serper), which have no recorded pages. Everything else is read as `serve` reads it.
 */
const IGNORED = [
  'TRAWL_DATABASE_URL',
  'TRAWL_REDIS_URL',
  'TRAWL_UPSTREAM_HOSTS',
  'TRAWL_PROXY_POOLS',
  'TRAWL_BRAVE_API_KEY',
  'TRAWL_SEARXNG_URL',
  'TRAWL_SERPER_API_KEY',
]

export function demoEnv(env: Record<string, string | undefined>, databaseFile: string, enginesUrl: string): Record<string, string | undefined> {
  const kept = Object.fromEntries(Object.entries(env).filter(([name]) => !IGNORED.includes(name)))
  return { ...kept, TRAWL_DATABASE_URL: `sqlite:${databaseFile}`, TRAWL_UPSTREAM_HOSTS: `*=${enginesUrl}` }
}

/** Starts the demo and leaves it running; the temporary directory goes when the process exits. */
export async function runDemo(env: Record<string, string | undefined>): Promise<FastifyInstance> {
  const dir = mkdtempSync(join(tmpdir(), 'trawl-demo-'))
  // Ctrl-C and SIGTERM end in process.exit once the server has closed (main.ts), as does a failed start.
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }))
  const databaseFile = join(dir, 'trawl.db')
  const engines = await startRecordedEngines()
  const config = loadConfig(demoEnv(env, databaseFile, engines.url))
  const login = { email: DEMO_EMAIL, password: randomBytes(9).toString('base64url') }
  const key = await createDemoAccount(config, login)
  const app = await serve(config, {
    prepare(app) {
      app.log.warn('demo mode: every engine answers from recorded result pages, whatever the query; nothing here is a live search')
      app.addHook('onSend', async (_req, reply) => {
        reply.header(DEMO_HEADER, DEMO_HEADER_VALUE)
      })
      app.addHook('onClose', () => engines.close())
    },
    banner: (listenUrl) => demoBanner({ config, listenUrl, key, login, databaseFile }),
  }).catch((err: NodeJS.ErrnoException) => {
    if (err.code !== 'EADDRINUSE') throw err
    throw new Error(`port ${config.port} is in use (another Trawl?): TRAWL_PORT=<another port> npx trawl demo`)
  })
  return app
}

/** The account as `trawl accounts create` makes it (the operator's schema, then the accounts service). */
async function createDemoAccount(config: Config, login: { email: string; password: string }): Promise<string> {
  const input = CreateAccountBody.parse({ ...login, plan: 'pro', credits: DEMO_CREDITS })
  const store = await openStore(config.databaseUrl)
  try {
    return (await createAccount(store, input)).key.secret
  } finally {
    await store.close()
  }
}

interface BannerInput {
  config: Pick<Config, 'baseUrl' | 'appUrl' | 'port'>
  listenUrl: string
  key: string
  login: { email: string; password: string }
  databaseFile: string
}

export function demoBanner({ config, listenUrl, key, login, databaseFile }: BannerInput): string {
  // With TRAWL_PORT=0 the configured addresses name port 0: the address listened on is the one to show.
  const base = config.port === 0 ? listenUrl.replace(/\/$/, '') : config.baseUrl
  const app = config.port === 0 && config.appUrl.startsWith(config.baseUrl) ? base + config.appUrl.slice(config.baseUrl.length) : config.appUrl
  return [
    '',
    '  Trawl demo: results come from RECORDED result pages shipped with Trawl, not from the live web.',
    '  Whatever you search for, the answer is one of those pages (every response has the header',
    `  ${DEMO_HEADER}: ${DEMO_HEADER_VALUE}). \`npm start\` runs the real thing.`,
    '',
    `TRAWL_API_KEY=${key}`,
    '',
    '  Search:',
    `    curl -H "Authorization: Bearer ${key}" "${base}/v1/search?q=coffee"`,
    '  or, in another terminal:',
    `    TRAWL_URL=${base} TRAWL_API_KEY=${key} npx trawl search coffee`,
    '',
    `  Dashboard  ${app}`,
    `  Sign in    ${login.email}  password ${login.password}`,
    `  API docs   ${base}/docs`,
    `  Database   ${databaseFile} (deleted when the demo stops)`,
    '',
    '  Ctrl-C stops the demo.',
    '',
  ].join('\n')
}
