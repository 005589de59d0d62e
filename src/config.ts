import { existsSync } from 'node:fs'
import { availableParallelism } from 'node:os'
import { z } from 'zod'

/** A named group of proxies; `name` may be a two-letter country code, which page reading uses for `country`. */
export interface ProxyPool {
  name: string
  urls: string[]
}

/** Engine → the pools its requests take, in order; `[]`: it connects directly. Engines not listed take every pool. */
export type ProxyEngines = Readonly<Record<string, readonly string[]>>

const bool = (fallback: 'true' | 'false') => z.enum(['true', 'false']).default(fallback)
const positiveInt = (fallback: number) => z.coerce.number().int().positive().default(fallback)

const Env = z.object({
  TRAWL_HOST: z.string().min(1).default('127.0.0.1'),
  TRAWL_PORT: z.coerce.number().int().min(0).max(65535).default(8080),
  TRAWL_DATABASE_URL: z
    .string()
    .regex(/^(sqlite:.+|postgres(ql)?:\/\/.+)$/, 'must be sqlite:<path> or postgres://...')
    .default('sqlite:./data/trawl.db'),
  TRAWL_REDIS_URL: z
    .string()
    .regex(/^rediss?:\/\//, 'must be redis://...')
    .optional(),
  TRAWL_BASE_URL: z.url().optional(),
  TRAWL_APP_URL: z.url().optional(),
  TRAWL_SITE_URL: z.url().optional(),
  TRAWL_ADMIN_TOKEN: z.string().min(16, 'must be at least 16 characters').optional(),
  TRAWL_UPSTREAM_HOSTS: z.string().default(''),
  TRAWL_ALLOW_PRIVATE_NETWORK: bool('false'),
  TRAWL_WEBHOOK_RETRY_BASE_MS: positiveInt(60_000),
  TRAWL_SCHEDULER_POLL_MS: positiveInt(30_000),
  TRAWL_WORKERS: bool('true'),
  TRAWL_USD_PER_CREDIT: z.coerce.number().positive().default(0.001),
  // Trawl's own settings (README "Configuration").
  TRAWL_PROXY_POOLS: z.string().default(''),
  TRAWL_PROXY_ENGINES: z.string().default(''),
  TRAWL_UPSTREAM_TIMEOUT_MS: positiveInt(15_000),
  // The cap on one proof-of-work solve of an engine's gate (docs/engines.md "Gates").
  TRAWL_POW_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(4_000),
  TRAWL_BODY_LIMIT_BYTES: positiveInt(1_048_576),
  // Slow clients (docs/operations.md): the headers, and the whole request, must arrive within these.
  TRAWL_HEADERS_TIMEOUT_MS: z.coerce.number().int().min(1000).max(600_000).default(10_000),
  TRAWL_REQUEST_TIMEOUT_MS: z.coerce.number().int().min(1000).max(600_000).default(30_000),
  TRAWL_ENGINE_COOLDOWN_MS: positiveInt(120_000),
  TRAWL_JOB_LEASE_MS: z.coerce.number().int().min(1000).max(600_000).default(60_000),
  TRAWL_BRAVE_API_KEY: z.string().min(8, 'must be a Brave Search API key').optional(),
  TRAWL_SEARXNG_URL: z
    .url()
    .regex(/^https?:\/\//i, 'must be the http(s) URL of a SearXNG instance')
    .optional(),
  TRAWL_SERPER_API_KEY: z.string().min(8, 'must be a Serper API key').optional(),
  // An OpenAI-compatible embeddings endpoint: POST /v1/context fuses its ranking with the lexical one (docs/context.md).
  TRAWL_EMBEDDINGS_URL: z
    .url()
    .regex(/^https?:\/\//i, 'must be the http(s) URL of an OpenAI-compatible embeddings endpoint')
    .optional(),
  TRAWL_EMBEDDINGS_MODEL: z.string().min(1).optional(),
  // The operator's own OpenAI-compatible chat model: answers, schema extraction and research (docs/models.md).
  TRAWL_LLM_URL: z
    .url()
    .regex(/^https?:\/\//i, 'must be the http(s) URL of an OpenAI-compatible chat completions endpoint')
    .optional(),
  TRAWL_LLM_MODEL: z.string().min(1).optional(),
  TRAWL_LLM_API_KEY: z.string().min(1).optional(),
  TRAWL_LLM_TIMEOUT_MS: z.coerce.number().int().min(1000).max(600_000).default(60_000),
  // Credits per model call (the operator's model costs them too): 1 by default, 0 makes calls free.
  TRAWL_LLM_CALL_CREDITS: z.coerce.number().min(0).max(100).default(1),
  TRAWL_KEY_CACHE_MS: z.coerce.number().int().min(0).max(60_000).default(30_000),
  TRAWL_LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  TRAWL_SEARXNG_KEYLESS: bool('false'),
  TRAWL_SIGNUP: z.enum(['open', 'off'], { error: 'must be open or off' }).default('off'),
  // Sign-up abuse (docs/dashboard.md): credits a new account gets, and accounts per address an hour.
  TRAWL_SIGNUP_CREDITS: z.coerce.number().min(0).max(1_000_000).default(0),
  TRAWL_SIGNUP_PER_HOUR: z.coerce.number().int().min(1).max(1000).default(3),
  TRAWL_SIGNUP_VERIFY_URL: z.url({ error: 'must be an http(s) URL' }).optional(),
  // Behind a reverse proxy: which hops' X-Forwarded-For to believe (false, true, a hop count, or addresses/CIDRs).
  TRAWL_TRUST_PROXY: z
    .string()
    .regex(/^(false|true|\d{1,2}|[0-9a-fA-F:./]+(,\s*[0-9a-fA-F:./]+)*)$/, 'must be false, true, a hop count, or comma-separated addresses/CIDRs')
    .default('false'),
  // Reader threads for page parsing and Markdown (docs/crawl.md); 0 reads on the main thread.
  // The main thread fetches, stores and answers; readers take the other cores (one at least).
  TRAWL_READER_THREADS: z.coerce
    .number()
    .int()
    .min(0)
    .max(64)
    .default(Math.max(1, availableParallelism() - 1)),
  // A reader thread whose heap ends a read above this many MB is replaced: V8 keeps what a huge page grew.
  TRAWL_READER_THREAD_MEMORY_MB: z.coerce.number().int().min(1).max(65_536).default(512),
  // Rendering pages that need JavaScript (docs/rendering.md).
  TRAWL_BROWSER: z.string().optional(),
  TRAWL_BROWSER_CONTEXTS: z.coerce.number().int().min(1).max(32).default(2),
  TRAWL_BROWSER_PAGE_TIMEOUT_MS: z.coerce.number().int().min(1000).max(120_000).default(20_000),
  TRAWL_BROWSER_RECYCLE_PAGES: positiveInt(200),
  TRAWL_BROWSER_MAX_RSS_MB: z.coerce.number().int().min(128).default(1024),
  TRAWL_METRICS_PUBLIC: bool('false'),
  TRAWL_METRICS_PORT: z.coerce.number().int().min(0).max(65535).optional(),
})

export type Config = ReturnType<typeof loadConfig>

/** The only function that reads the environment; everything else is handed a Config. */
export function loadConfig(env: Record<string, string | undefined> = process.env) {
  const raw = stripEmpty(env)
  const parsed = Env.safeParse(raw)
  const problems: string[] = parsed.success ? [] : parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}${shownValue(raw, String(i.path[0]))}`)
  // The two lists are parsed from the raw text even when another variable is bad, so one start-up
  // names every bad variable (both are plain strings to the schema, so it never rejects them).
  let upstreamHosts = new Map<string, string>()
  let proxyPools: ProxyPool[] = []
  let proxyEngines: ProxyEngines = {}
  try {
    upstreamHosts = parseHostMap(raw.TRAWL_UPSTREAM_HOSTS ?? '')
  } catch (e) {
    problems.push(`  TRAWL_UPSTREAM_HOSTS: ${(e as Error).message}`)
  }
  try {
    proxyPools = parseProxyPools(raw.TRAWL_PROXY_POOLS ?? '')
  } catch (e) {
    problems.push(`  TRAWL_PROXY_POOLS: ${(e as Error).message}`)
  }
  try {
    proxyEngines = parseProxyEngines(raw.TRAWL_PROXY_ENGINES ?? '', proxyPools)
  } catch (e) {
    problems.push(`  TRAWL_PROXY_ENGINES: ${(e as Error).message}`)
  }
  if (!parsed.success || problems.length > 0) {
    throw new Error(`invalid configuration:\n${problems.join('\n')}`) // every bad variable at once
  }
  const e = parsed.data
  const baseUrl = (e.TRAWL_BASE_URL ?? `http://${hostForUrl(e.TRAWL_HOST)}:${e.TRAWL_PORT}`).replace(/\/$/, '')
  const appUrl = (e.TRAWL_APP_URL ?? `${baseUrl}/app`).replace(/\/$/, '')
  return Object.freeze({
    host: e.TRAWL_HOST,
    port: e.TRAWL_PORT,
    databaseUrl: e.TRAWL_DATABASE_URL,
    redisUrl: e.TRAWL_REDIS_URL ?? null,
    baseUrl,
    appUrl,
    siteUrl: e.TRAWL_SITE_URL ?? null,
    adminToken: e.TRAWL_ADMIN_TOKEN ?? null,
    upstreamHosts,
    allowPrivateNetwork: e.TRAWL_ALLOW_PRIVATE_NETWORK === 'true',
    webhookRetryBaseMs: e.TRAWL_WEBHOOK_RETRY_BASE_MS,
    schedulerPollMs: e.TRAWL_SCHEDULER_POLL_MS,
    workers: e.TRAWL_WORKERS === 'true',
    usdPerCredit: e.TRAWL_USD_PER_CREDIT,
    proxyPools: Object.freeze(proxyPools),
    proxyEngines,
    upstreamTimeoutMs: e.TRAWL_UPSTREAM_TIMEOUT_MS,
    powTimeoutMs: e.TRAWL_POW_TIMEOUT_MS,
    bodyLimitBytes: e.TRAWL_BODY_LIMIT_BYTES,
    // Node refuses a headers timeout longer than the request timeout.
    headersTimeoutMs: Math.min(e.TRAWL_HEADERS_TIMEOUT_MS, e.TRAWL_REQUEST_TIMEOUT_MS),
    requestTimeoutMs: e.TRAWL_REQUEST_TIMEOUT_MS,
    engineCooldownMs: e.TRAWL_ENGINE_COOLDOWN_MS,
    jobLeaseMs: e.TRAWL_JOB_LEASE_MS,
    braveApiKey: e.TRAWL_BRAVE_API_KEY ?? null,
    searxngUrl: e.TRAWL_SEARXNG_URL ?? null,
    serperApiKey: e.TRAWL_SERPER_API_KEY ?? null,
    /** POST /v1/context's hybrid ranking; null: lexical only. */
    embeddings: e.TRAWL_EMBEDDINGS_URL ? Object.freeze({ url: e.TRAWL_EMBEDDINGS_URL, model: e.TRAWL_EMBEDDINGS_MODEL ?? null }) : null,
    /** The chat model behind answers, schema extraction and research; null: those answer 501 not_configured. */
    llm: e.TRAWL_LLM_URL
      ? Object.freeze({
          url: e.TRAWL_LLM_URL,
          model: e.TRAWL_LLM_MODEL ?? null,
          apiKey: e.TRAWL_LLM_API_KEY ?? null,
          timeoutMs: e.TRAWL_LLM_TIMEOUT_MS,
          callCredits: e.TRAWL_LLM_CALL_CREDITS,
        })
      : null,
    keyCacheMs: e.TRAWL_KEY_CACHE_MS,
    logLevel: e.TRAWL_LOG_LEVEL,
    searxngKeyless: e.TRAWL_SEARXNG_KEYLESS === 'true',
    /** Self-service sign-up at <app>/api/v1/signup (docs/dashboard.md). */
    signupOpen: e.TRAWL_SIGNUP === 'open',
    signup: Object.freeze({ credits: e.TRAWL_SIGNUP_CREDITS, perHour: e.TRAWL_SIGNUP_PER_HOUR, verifyUrl: e.TRAWL_SIGNUP_VERIFY_URL ?? null }),
    /** Fastify's trustProxy: req.ip from X-Forwarded-For only through these hops. */
    trustProxy: trustProxyOf(e.TRAWL_TRUST_PROXY),
    readerThreads: e.TRAWL_READER_THREADS,
    readerThreadMemoryMb: e.TRAWL_READER_THREAD_MEMORY_MB,
    browser: Object.freeze({
      executablePath: browserPath(e.TRAWL_BROWSER, env.PATH),
      contexts: e.TRAWL_BROWSER_CONTEXTS,
      pageTimeoutMs: e.TRAWL_BROWSER_PAGE_TIMEOUT_MS,
      recyclePages: e.TRAWL_BROWSER_RECYCLE_PAGES,
      maxRssMb: e.TRAWL_BROWSER_MAX_RSS_MB,
    }),
    /** GET /metrics without the operator token (a scrape on a private network). */
    metricsPublic: e.TRAWL_METRICS_PUBLIC === 'true',
    /** `trawl worker` serves GET /metrics on this port (the API serves it on its own port). */
    metricsPort: e.TRAWL_METRICS_PORT ?? null,
  })
}

/**
 * TRAWL_BROWSER: `off` disables rendering; a path names the Chromium to drive; unset looks for
 * /usr/bin/chromium, then `chromium` or `chromium-browser` on PATH, and leaves rendering off when
 * there is none (reported by /healthz).
 */
function browserPath(value: string | undefined, path = ''): string | null {
  if (value === 'off') return null
  if (value) return value
  const candidates = ['/usr/bin/chromium', ...path.split(':').flatMap((dir) => (dir ? [`${dir}/chromium`, `${dir}/chromium-browser`] : []))]
  return candidates.find((p) => existsSync(p)) ?? null
}

/** TRAWL_TRUST_PROXY as Fastify's trustProxy: a hop count believes that many proxies in front. */
function trustProxyOf(value: string): boolean | string[] | ((address: string, hop: number) => boolean) {
  if (value === 'false' || value === 'true') return value === 'true'
  if (/^\d+$/.test(value)) {
    const hops = Number(value)
    return (_address, hop) => hop < hops
  }
  return value.split(',').map((s) => s.trim())
}

/** ` (got "abc")` for a bad variable's value; secrets (keys, tokens, passwords) are not shown. */
function shownValue(raw: Record<string, string | undefined>, name: string): string {
  const value = raw[name]
  if (value === undefined) return ''
  if (/KEY|TOKEN|SECRET|PASSWORD/.test(name)) return ' (value not shown)'
  return ` (got ${JSON.stringify(value.length > 80 ? `${value.slice(0, 80)}…` : value)})`
}

/** An empty variable means "unset", as in most shells' `VAR= cmd`. */
function stripEmpty(env: Record<string, string | undefined>) {
  return Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''))
}

function hostForUrl(host: string) {
  return host.includes(':') ? `[${host}]` : host
}

/** `www.google.com=http://127.0.0.1:9101,*=http://127.0.0.1:9102` (TRAWL_UPSTREAM_HOSTS, README.md "Configuration"). */
export function parseHostMap(text: string): Map<string, string> {
  const map = new Map<string, string>()
  for (const pair of text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)) {
    const eq = pair.indexOf('=')
    const host = pair.slice(0, eq).trim().toLowerCase()
    const base = pair.slice(eq + 1).trim()
    if (eq <= 0 || !base) throw new Error(`"${pair}" is not host=baseURL`)
    if (!URL.canParse(base) || !/^https?:$/.test(new URL(base).protocol)) {
      throw new Error(`"${base}" is not an http(s) URL`)
    }
    map.set(host, base.replace(/\/$/, ''))
  }
  return map
}

/**
 * `name=a,b;name2=c` lists (TRAWL_PROXY_POOLS, TRAWL_PROXY_ENGINES): entries separated by `;`,
 * values by `,`, names lower-cased; an entry without `name=` is refused as not being `shape`.
 */
function namedLists(text: string, shape: string): { name: string; values: string[] }[] {
  return text
    .split(';')
    .map((s) => s.trim())
    .filter(Boolean)
    .map((entry) => {
      const eq = entry.indexOf('=')
      if (eq <= 0) throw new Error(`"${entry}" is not ${shape}`)
      const values = entry
        .slice(eq + 1)
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean)
      return { name: entry.slice(0, eq).trim().toLowerCase(), values }
    })
}

/**
 * `searxng=direct;google=resi,dc`: an engine's own pools, in the order it tries them, or `direct`
 * (no proxy: a SearXNG on the operator's network, say). Engine names are checked against the
 * providers where those are known (services.ts); pool names here, against TRAWL_PROXY_POOLS.
 */
export function parseProxyEngines(text: string, pools: readonly ProxyPool[]): ProxyEngines {
  const engines: Record<string, readonly string[]> = {}
  const defined = new Set(pools.map((p) => p.name))
  for (const { name: engine, values } of namedLists(text, 'engine=pool[,pool...] or engine=direct')) {
    const names = values.map((v) => v.toLowerCase())
    if (names.length === 0) throw new Error(`engine "${engine}" names no pool (engine=pool[,pool...] or engine=direct)`)
    if (Object.hasOwn(engines, engine)) throw new Error(`engine "${engine}" is listed twice`)
    if (names.includes('direct')) {
      if (names.length > 1) throw new Error(`engine "${engine}": direct is a route of its own, not one of a list`)
      engines[engine] = []
      continue
    }
    const unknown = names.filter((name) => !defined.has(name))
    if (unknown.length > 0) throw new Error(`engine "${engine}" names pool "${unknown[0]}", which TRAWL_PROXY_POOLS does not define`)
    engines[engine] = [...new Set(names)]
  }
  return Object.freeze(engines)
}

/**
 * `main=http://p1:3128,http://p2:3128;backup=http://p3:3128;de=https://p4:3128`: pools separated
 * by `;`, proxies in a pool by `,`, http(s) proxies only. Pools are tried in the order written when
 * one fails (docs/self-hosting.md, "Engine proxies").
 */
export function parseProxyPools(text: string): ProxyPool[] {
  return namedLists(text, 'name=url[,url...]').map(({ name, values: urls }) => {
    if (urls.length === 0) throw new Error(`pool "${name}" has no proxies`)
    for (const u of urls) {
      if (!URL.canParse(u) || !/^https?:$/.test(new URL(u).protocol)) {
        throw new Error(`proxy "${u}" in pool "${name}" is not an http(s) URL`)
      }
    }
    return { name, urls }
  })
}
