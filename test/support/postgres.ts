import { randomBytes } from 'node:crypto'
import pg from 'pg'

/** The machine's PostgreSQL (CI starts it); tests get a database of their own and drop it after. */
export const POSTGRES_ADMIN_URL = 'postgres://postgres@127.0.0.1:5432/postgres'

export async function createTestDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `trawl_test_${randomBytes(6).toString('hex')}`
  const admin = new pg.Client({ connectionString: POSTGRES_ADMIN_URL })
  await admin.connect()
  await admin.query(`create database ${name}`)
  await admin.end()
  return {
    url: `postgres://postgres@127.0.0.1:5432/${name}`,
    async drop() {
      const c = new pg.Client({ connectionString: POSTGRES_ADMIN_URL })
      await c.connect()
      await c.query(`drop database if exists ${name} with (force)`)
      await c.end()
    },
  }
}
