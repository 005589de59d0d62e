import type { DestinationStream } from 'pino'
import type { Config } from './config.ts'
import { describeDatabase } from './store/database.ts'

/**
 * What `trawl serve` (npm start) shows a person at a terminal: a short banner after listening, and
 * log lines made readable by pino-pretty. When stdout is not a terminal (a service manager, Docker,
 * a pipe) there is no banner and every line is JSON, for log collectors.
 */

/** The banner printed once the server listens; `listenUrl` is the address it listens on. */
export function startupBanner(config: Pick<Config, 'baseUrl' | 'appUrl' | 'port' | 'signupOpen' | 'databaseUrl'>, listenUrl: string): string {
  // With TRAWL_PORT=0 the configured base URL names port 0: the address listened on is the one to show.
  const base = config.port === 0 ? listenUrl.replace(/\/$/, '') : config.baseUrl
  const app = config.port === 0 && config.appUrl.startsWith(config.baseUrl) ? base + config.appUrl.slice(config.baseUrl.length) : config.appUrl
  return [
    '',
    '  Trawl is running',
    '',
    `  API        ${base}`,
    `  Dashboard  ${app}${config.signupOpen ? ' (sign-up open)' : ''}`,
    `  API docs   ${base}/docs`,
    `  Database   ${describeDatabase(config.databaseUrl)} (TRAWL_DATABASE_URL; operator commands need the same)`,
    '',
    '  Create an account (in another terminal), then sign in to the dashboard with it:',
    "    npx trawl accounts create --email you@example.com --password 'choose one' --credits 100",
    '  and search with the API key it prints:',
    `    curl -H "Authorization: Bearer trawl_live_..." "${base}/v1/search?q=coffee"`,
    '',
    '  Ctrl-C stops the server. Logs follow.',
    '',
  ].join('\n')
}

/**
 * Where the API's log lines go: pino-pretty (colours, local times, one readable line per event)
 * when stdout is a terminal, else undefined (JSON lines on stdout, pino's default). Loaded only then.
 */
export async function terminalLogStream(isTTY: boolean | undefined): Promise<DestinationStream | undefined> {
  if (!isTTY) return undefined
  const { default: pretty } = await import('pino-pretty')
  return pretty({ colorize: true, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname', singleLine: true })
}
