import { execFile } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { promisify } from 'node:util'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { createTestDatabase } from './support/postgres.ts'

/**
 * The image's `trawl` (docker/trawl, linked from /usr/local/bin): run as `docker compose exec api
 * trawl …`, an operator command must use the servers' PostgreSQL database that the entrypoint builds
 * from the compose secrets, not the image's SQLite default (TRAWL_DATABASE_URL=sqlite:/data/trawl.db),
 * or the key it prints is one the servers never accept. Run here on the host with the same variables.
 */

const WRAPPER = new URL('../docker/trawl', import.meta.url).pathname
let dir: string
let database: Awaited<ReturnType<typeof createTestDatabase>>

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'trawl-docker-'))
  writeFileSync(join(dir, 'postgres_password'), 'unused-with-trust-auth\n')
  database = await createTestDatabase()
})
afterAll(async () => {
  await database?.drop()
  rmSync(dir, { recursive: true, force: true })
})

describe('trawl inside the image', () => {
  test('an operator command uses the compose PostgreSQL database, not the image SQLite default, and says so', async () => {
    const sqliteFile = join(dir, 'image-default.db')
    const name = new URL(database.url).pathname.slice(1)
    const env = {
      PATH: `${dirname(process.execPath)}:${process.env.PATH ?? ''}`,
      TRAWL_DATABASE_URL: `sqlite:${sqliteFile}`,
      TRAWL_SECRETS_DIR: dir,
      TRAWL_POSTGRES_HOST: '127.0.0.1',
      TRAWL_POSTGRES_USER: 'postgres',
      TRAWL_POSTGRES_DB: name,
    }
    const run = await promisify(execFile)('sh', [WRAPPER, 'accounts', 'create', '--email', 'compose@example.test', '--json'], { env })
    expect(run.stderr).toBe(`trawl: database PostgreSQL 127.0.0.1:5432/${name} (TRAWL_DATABASE_URL)\n`)
    expect(run.stderr).not.toContain('unused-with-trust-auth')
    expect(JSON.parse(run.stdout)).toMatchObject({ owner: { email: 'compose@example.test' } })
    expect(existsSync(sqliteFile)).toBe(false)
    const client = new pg.Client({ connectionString: database.url })
    await client.connect()
    try {
      const { rows } = await client.query('select email from users')
      expect(rows).toEqual([{ email: 'compose@example.test' }])
    } finally {
      await client.end()
    }
  })
})
