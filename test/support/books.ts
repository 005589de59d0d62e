import { expect } from 'vitest'
import type { Trawl } from './start-trawl.ts'

/** Balance == sum of the ledger and no reservation left open: every reservation was settled. Returns the balance in credits. */
export async function expectBooksBalanced(trawl: Trawl, accountId: string): Promise<number> {
  const db = trawl.services.store.db
  const account = await db.selectFrom('accounts').select('balance_mc').where('id', '=', accountId).executeTakeFirstOrThrow()
  const ledger = await db
    .selectFrom('ledger')
    .select((eb) => eb.fn.sum<number>('amount_mc').as('sum'))
    .where('account_id', '=', accountId)
    .executeTakeFirstOrThrow()
  expect(Number(ledger.sum)).toBe(account.balance_mc)
  expect(await db.selectFrom('reservations').selectAll().where('account_id', '=', accountId).execute()).toEqual([])
  return account.balance_mc / 1000
}

/** The error envelope of a failed response, checked to carry the X-Request-Id. */
export async function errorOf(res: Response) {
  const body = await res.json()
  expect(body.error.request_id).toBe(res.headers.get('x-request-id'))
  return { status: res.status, ...body.error }
}
