import { reachable } from './reachable.ts'

/**
 * Whether the machine's PostgreSQL and Redis answer. CI (CI=true) always runs their tests, and
 * starts the servers in .ci/run, so a missing server there fails loudly; on a developer machine
 * with only Node.js, `npm test` skips those suites and says so instead of failing.
 */

const inCi = process.env.CI === 'true' || process.env.CI === '1'

async function skipWithout(name: string, port: number): Promise<boolean> {
  if (inCi || (await reachable(port))) return false
  console.warn(`${name} is not running on 127.0.0.1:${port}: its tests are skipped (CI runs them)`)
  return true
}

export const skipWithoutPostgres = await skipWithout('PostgreSQL', 5432)
export const skipWithoutRedis = await skipWithout('Redis', 6379)
