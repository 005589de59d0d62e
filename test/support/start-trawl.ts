import { randomUUID } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { FastifyInstance } from 'fastify'
import type { DestinationStream } from 'pino'
import { buildApp } from '../../src/app.ts'
import { loadConfig } from '../../src/config.ts'
import type { Services } from '../../src/deps.ts'
import { openServices, startWorkers } from '../../src/services.ts'

export const ADMIN_TOKEN = 'test-admin-token-0123456789'

export interface Trawl {
  base: string
  app: FastifyInstance
  services: Services
  /** Creates an account through the operator API and returns its first key's secret. */
  account(body?: Record<string, unknown>): Promise<{ id: string; key: string; ownerId: string }>
  admin(method: string, path: string, body?: unknown): Promise<Response>
  close(): Promise<void>
}

export interface StartOptions {
  workers?: boolean
  databaseDir?: string
  /** Receives the server's log lines; pass TRAWL_LOG_LEVEL in env, since tests log nothing by default. */
  logStream?: DestinationStream
  /** Listen on this port (pass the same TRAWL_PORT in env so the configured URLs name it); else a random one. */
  port?: number
}

/**
 * The real server on a random port over a fresh database: SQLite in a temp dir by default, or a
 * fresh schema-isolated PostgreSQL database when `TRAWL_TEST_POSTGRES` style env is passed in `env`.
 */
export async function startTrawl(env: Record<string, string> = {}, opts: StartOptions = {}): Promise<Trawl> {
  const dir = opts.databaseDir ?? mkdtempSync(join(tmpdir(), 'trawl-test-'))
  const config = loadConfig({
    TRAWL_DATABASE_URL: `sqlite:${join(dir, 'trawl.db')}`,
    TRAWL_ADMIN_TOKEN: ADMIN_TOKEN,
    TRAWL_LOG_LEVEL: 'silent',
    TRAWL_PORT: '0',
    ...env,
  })
  const services = await openServices(config)
  const app = await buildApp(services, { logStream: opts.logStream })
  // Background workers as `npm start` runs them, when a test needs crawls or webhooks to move.
  const workers = opts.workers ? startWorkers(services, app.log) : null
  app.addHook('onClose', async () => {
    await workers?.stop()
    await services.close()
  })
  const base = await app.listen({ host: '127.0.0.1', port: opts.port ?? 0 })
  const admin = (method: string, path: string, body?: unknown) =>
    fetch(`${base}${path}`, {
      method,
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    })
  return {
    base,
    app,
    services,
    admin,
    async account(body = {}) {
      const res = await admin('POST', '/admin/v1/accounts', { email: `${randomUUID()}@example.test`, credits: 100, ...body })
      if (res.status !== 201) throw new Error(`account create failed: ${res.status} ${await res.text()}`)
      const json = (await res.json()) as { account: { id: string }; key: { secret: string }; owner: { id: string } }
      return { id: json.account.id, key: json.key.secret, ownerId: json.owner.id }
    },
    async close() {
      await app.close()
      if (!opts.databaseDir) rmSync(dir, { recursive: true, force: true })
    },
  }
}
