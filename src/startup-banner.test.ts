import { resolve } from 'node:path'
import { describe, expect, test } from 'vitest'
import { loadConfig } from './config.ts'
import { startupBanner, terminalLogStream } from './startup-banner.ts'

describe('the start-up banner', () => {
  test('names the API, dashboard and docs addresses and the command that creates an account', () => {
    const banner = startupBanner(loadConfig({}), 'http://127.0.0.1:8080')
    expect(banner).toContain('API        http://127.0.0.1:8080')
    expect(banner).toContain('Dashboard  http://127.0.0.1:8080/app')
    expect(banner).toContain('API docs   http://127.0.0.1:8080/docs')
    expect(banner).toContain(`Database   SQLite ${resolve('data/trawl.db')} (TRAWL_DATABASE_URL; operator commands need the same)`)
    expect(banner).toContain("npx trawl accounts create --email you@example.com --password 'choose one' --credits 100")
    expect(banner).not.toContain('sign-up open')
  })

  test('port 0 shows the port listened on; public URLs as configured; sign-up; no database password', () => {
    const zero = startupBanner(loadConfig({ TRAWL_PORT: '0' }), 'http://127.0.0.1:41234')
    expect(zero).toContain('API        http://127.0.0.1:41234\n')
    expect(zero).toContain('Dashboard  http://127.0.0.1:41234/app')
    const config = loadConfig({
      TRAWL_BASE_URL: 'https://api.example.test',
      TRAWL_APP_URL: 'https://app.example.test',
      TRAWL_SIGNUP: 'open',
      TRAWL_DATABASE_URL: 'postgres://trawl:hunter2secret@db/trawl',
    })
    const banner = startupBanner(config, 'http://127.0.0.1:8080')
    expect(banner).toContain('API        https://api.example.test')
    expect(banner).toContain('Dashboard  https://app.example.test (sign-up open)')
    expect(banner).toContain('curl -H "Authorization: Bearer trawl_live_..." "https://api.example.test/v1/search?q=coffee"')
    expect(banner).not.toContain('hunter2secret')
    expect(banner).toContain('Database   PostgreSQL db/trawl (TRAWL_DATABASE_URL')
  })

  test('pretty log lines only at a terminal', async () => {
    expect(await terminalLogStream(false)).toBeUndefined()
    expect(await terminalLogStream(undefined)).toBeUndefined()
    expect(typeof (await terminalLogStream(true))?.write).toBe('function')
  })
})
