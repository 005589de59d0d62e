import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { createTestDatabase } from '../../test/support/postgres.ts'
import { skipWithoutPostgres } from '../../test/support/servers.ts'
import { openStore, type Store } from '../store/database.ts'
import { claimDue, releaseLease, renewLease } from './jobs.store.ts'

function leaseSuite(name: string, open: () => Promise<{ store: Store; cleanup(): Promise<void> }>, skip = false) {
  describe.skipIf(skip)(`leases on ${name}`, () => {
    let store: Store
    let cleanup: () => Promise<void>
    beforeAll(async () => {
      ;({ store, cleanup } = await open())
      // A work table of the shape every leased feature table has.
      await store.db.schema
        .createTable('work_items')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('run_at', 'bigint', (c) => c.notNull())
        .addColumn('lease_owner', 'text')
        .addColumn('lease_expires_at', 'bigint')
        .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
        .execute()
      const rows = Array.from({ length: 40 }, (_, i) => ({
        id: `w${String(i).padStart(2, '0')}`,
        status: 'queued',
        run_at: i < 30 ? 1000 : 10_000_000_000_000,
      }))
      await (store.db as any).insertInto('work_items').values(rows).execute()
    })
    afterAll(async () => {
      await store.close()
      await cleanup()
    })

    test('concurrent workers claim disjoint due rows; future rows wait', async () => {
      const claims = await Promise.all(['a', 'b', 'c', 'd'].map((w) => claimDue(store, 'work_items', { workerId: w, leaseMs: 60_000, limit: 10, now: 2000 })))
      const all = claims.flat()
      expect(all).toHaveLength(30)
      expect(new Set(all).size).toBe(30)
      expect(all.every((id) => Number(id.slice(1)) < 30)).toBe(true)
    })

    test('an expired lease is claimed again; the old owner can no longer renew or release it', async () => {
      const [id] = await claimDue(store, 'work_items', { workerId: 'late', leaseMs: 60_000, limit: 1, now: 2000 + 61_000 })
      expect(id).toBeTruthy()
      const row = await (store.db as any).selectFrom('work_items').selectAll().where('id', '=', id).executeTakeFirst()
      expect(row).toMatchObject({ status: 'running', lease_owner: 'late', attempts: 2 })
      const oldOwner = ['a', 'b', 'c', 'd'].find((w) => w !== 'late')!
      expect(await renewLease(store, 'work_items', id!, 'nobody', 1000)).toBe(false)
      expect(await releaseLease(store, 'work_items', id!, oldOwner, 'done')).toBe(false)
      expect(await renewLease(store, 'work_items', id!, 'late', 60_000)).toBe(true)
      expect(await releaseLease(store, 'work_items', id!, 'late', 'done')).toBe(true)
    })
  })
}

leaseSuite('SQLite', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'trawl-lease-'))
  return { store: await openStore(`sqlite:${join(dir, 'x.db')}`), cleanup: async () => rmSync(dir, { recursive: true, force: true }) }
})
leaseSuite(
  'PostgreSQL',
  async () => {
    const db = await createTestDatabase()
    return { store: await openStore(db.url), cleanup: db.drop }
  },
  skipWithoutPostgres,
)
