import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { FastifyInstance } from 'fastify'
import { type Config, loadConfig } from '../../config.ts'
import { BUILT_IN_ENGINES, type Engines } from '../../engines/registry.ts'
import { ApiError } from '../../errors.ts'
import { CreateAccountBody } from '../../features/accounts/accounts.schema.ts'
import { createAccount } from '../../features/accounts/accounts.service.ts'
import { VERTICAL_SPECS } from '../../features/search/verticals/vertical.specs.ts'
import { serve } from '../../main.ts'
import { openStore } from '../../store/database.ts'
import { type Endpoint, RECORDED_PAGES, type RecordedPage, startRecordedEngines } from './recorded-engines.ts'

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
  'TRAWL_PROXY_ENGINES',
  'TRAWL_BRAVE_API_KEY',
  'TRAWL_SEARXNG_URL',
  'TRAWL_SERPER_API_KEY',
]

export function demoEnv(env: Record<string, string | undefined>, databaseFile: string, enginesUrl: string): Record<string, string | undefined> {
  const kept = Object.fromEntries(Object.entries(env).filter(([name]) => !IGNORED.includes(name)))
  return { ...kept, TRAWL_DATABASE_URL: `sqlite:${databaseFile}`, TRAWL_UPSTREAM_HOSTS: `*=${enginesUrl}` }
}

const STOP_SIGNALS: readonly NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP']

/** Starts the demo and leaves it running; the temporary directory goes when the process exits. */
export async function runDemo(env: Record<string, string | undefined>): Promise<FastifyInstance> {
  const dir = mkdtempSync(join(tmpdir(), 'trawl-demo-'))
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }))
  // A signal while it starts ends it at once, through process.exit and so the line above. Once it
  // listens, Ctrl-C, SIGTERM and a hang-up (SIGHUP, the terminal closed) drain and exit 0 (main.ts);
  // a failed start ends in process.exit too.
  const early = () => process.exit(0)
  for (const signal of STOP_SIGNALS) process.once(signal, early)
  const databaseFile = join(dir, 'trawl.db')
  const engines = await startRecordedEngines()
  const config = loadConfig(demoEnv(env, databaseFile, engines.url))
  const login = { email: DEMO_EMAIL, password: randomBytes(9).toString('base64url') }
  const key = await createDemoAccount(config, login)
  const app = await serve(config, {
    stopSignals: STOP_SIGNALS,
    prepare(app, services) {
      app.log.warn('demo mode: every engine answers from recorded result pages, whatever the query; nothing here is a live search')
      answerOnlyRecorded(services.engines)
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
  // serve's own listeners are in place, so removing these never leaves a signal without one: the
  // last listener's removal closes libuv's watcher, and a signal already queued for it (the terminal
  // closed as the banner printed) would be dropped, the demo left running.
  for (const signal of STOP_SIGNALS) process.off(signal, early)
  return app
}

/** What the recorded pages answer: each endpoint (web search first, then the verticals in API order) with its engines, in registry order. */
export function recordedEndpoints(pages: readonly RecordedPage[] = RECORDED_PAGES): Map<Endpoint, string[]> {
  const endpoints: Endpoint[] = ['search', ...(Object.keys(VERTICAL_SPECS) as Endpoint[])]
  const engineOrder = (name: string) => (BUILT_IN_ENGINES as readonly string[]).indexOf(name)
  const out = new Map<Endpoint, string[]>()
  for (const endpoint of endpoints) {
    const engines = [...new Set(pages.filter((p) => p.serves.includes(endpoint)).map((p) => p.engine))].sort((a, b) => engineOrder(a) - engineOrder(b))
    if (engines.length > 0) out.set(endpoint, engines)
  }
  return out
}

const endpointWords = (endpoint: Endpoint) => (endpoint === 'search' ? 'web search' : endpoint)

/** "web search (google, bing), images (google)": what the demo answers, for its error message. */
function recordedText(recorded: Map<Endpoint, string[]>): string {
  return [...recorded].map(([endpoint, engines]) => `${endpointWords(endpoint)} (${engines.join(', ')})`).join(', ')
}

/** The demo's answer to a request for which it has no recorded page: no engine is asked. */
export function notRecorded(engine: string, endpoint: Endpoint, recorded: Map<Endpoint, string[]> = recordedEndpoints()): ApiError {
  return new ApiError(
    'not_configured',
    `the demo has no recorded ${engine} ${endpointWords(endpoint)} page, and answers only from recorded pages (recorded: ${recordedText(recorded)}); ` +
      '`npm start` (trawl serve) searches live',
  )
}

/**
 * Each engine refuses a vertical it has no recorded page for in its own check, the one every door
 * (the /v1 routes, batches, monitors, the compat APIs, the playground) runs before credits are
 * reserved and before any engine is asked: so such a request costs nothing and never reaches the
 * engine, whose health (blocked, degraded) it therefore cannot touch. Web search needs no such
 * check: every built-in engine's is recorded.
 */
export function answerOnlyRecorded(engines: Engines, recorded: Map<Endpoint, string[]> = recordedEndpoints()): void {
  for (const engine of engines.all()) {
    const check = engine.validateVertical?.bind(engine)
    engine.validateVertical = (req) => {
      if (!recorded.get(req.endpoint)?.includes(engine.name)) throw notRecorded(engine.name, req.endpoint, recorded)
      check?.(req)
    }
  }
}

/** The banner's lines on what is recorded (docs/cli.md "Trying it: trawl demo" shows the same). */
export function recordedLines(recorded: Map<Endpoint, string[]> = recordedEndpoints()): string[] {
  const missing = (Object.keys(VERTICAL_SPECS) as Endpoint[]).filter((e) => !recorded.has(e)).map((e) => `/v1/${e}`)
  const rest = `Not recorded: ${[...missing, 'and any engine not listed above'].join(', ')}: 501 not_configured, no engine asked.`
  return [
    '  Recorded (endpoint, engines):',
    ...[...recorded].map(([endpoint, engines]) => `    ${`/v1/${endpoint}`.padEnd(13)} ${engines.join(', ')}`),
    ...wrap(rest, 94),
  ]
}

/** `text` in lines of at most `width` characters after a two-space indent, broken at spaces. */
function wrap(text: string, width: number): string[] {
  const lines: string[] = []
  let line = ''
  for (const word of text.split(' ')) {
    if (line && line.length + 1 + word.length > width) {
      lines.push(`  ${line}`)
      line = word
    } else line = line ? `${line} ${word}` : word
  }
  if (line) lines.push(`  ${line}`)
  return lines
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
    ...recordedLines(),
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
    '  Ctrl-C stops the demo (so do SIGTERM and closing the terminal).',
    '',
  ].join('\n')
}
