import { execFile } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { startTrawl, type Trawl } from './support/start-trawl.ts'

/**
 * The operator commands of `trawl` against the database of a running server, checked through its
 * operator API and its public API (the user commands: cli-client.test.ts; help and version: cli-help.test.ts).
 */

const TRAWL = new URL('../bin/trawl.mjs', import.meta.url).pathname
let dir: string
let trawl: Trawl
let env: Record<string, string>

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'trawl-cli-'))
  // No key cache: a rotation or revocation made by the CLI process shows at once in the server.
  trawl = await startTrawl({ TRAWL_KEY_CACHE_MS: '0' }, { databaseDir: dir })
  env = { ...process.env, TRAWL_DATABASE_URL: `sqlite:${join(dir, 'trawl.db')}` } as Record<string, string>
})
afterAll(async () => {
  await trawl.close()
  rmSync(dir, { recursive: true, force: true })
})

/** Runs `trawl ...args`; resolves with the exit code and output, also on failure. */
async function cli(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [TRAWL, ...args], { env })
    return { code: 0, stdout, stderr }
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string }
    return { code: e.code, stdout: e.stdout, stderr: e.stderr }
  }
}

const accountOf = async (id: string) => (await (await trawl.admin('GET', `/admin/v1/accounts/${id}`)).json()) as { balance: number; plan: string }

describe('trawl CLI', () => {
  test('accounts create refuses what the operator API refuses, with a usage error', async () => {
    const [badEmail, badPlan, badCredits, noEmail, unknownFlag] = await Promise.all([
      cli('accounts', 'create', '--email', 'bad'),
      cli('accounts', 'create', '--email', 'plan@example.test', '--plan', 'gold'),
      cli('accounts', 'create', '--email', 'credits@example.test', '--credits', 'lots'),
      cli('accounts', 'create'),
      cli('accounts', 'create', '--email', 'x@example.test', '--bogus'),
    ])
    expect(badEmail).toMatchObject({ code: 2, stdout: '', stderr: expect.stringContaining('trawl: email must be an email address') })
    expect(badEmail.stderr).toContain('usage: trawl accounts create [options]')
    expect(badPlan).toMatchObject({ code: 2, stderr: expect.stringContaining('plan must be one of free, starter, growth, pro, enterprise') })
    expect(badCredits).toMatchObject({ code: 2, stderr: expect.stringContaining('credits must be a number of credits') })
    expect(noEmail).toMatchObject({ code: 2, stderr: expect.stringContaining('--email is required') })
    expect(unknownFlag).toMatchObject({ code: 2, stderr: expect.stringContaining("Unknown option '--bogus'") })
    // Nothing was created: the operator API finds none of those emails taken.
    const res = await trawl.admin('POST', '/admin/v1/accounts', { email: 'plan@example.test' })
    expect(res.status).toBe(201)
  })

  test('credits add needs --credits, refuses bad amounts, and prints JSON with --json', async () => {
    const { id } = await trawl.account({ credits: 10 })
    const [missing, negative, zero] = await Promise.all([
      cli('credits', 'add', '--account', id),
      cli('credits', 'add', '--account', id, '--credits=-5'),
      cli('credits', 'add', '--account', id, '--credits', '0'),
    ])
    expect(missing).toMatchObject({ code: 2, stdout: '', stderr: expect.stringContaining('--credits is required') })
    expect(negative).toMatchObject({ code: 2, stderr: expect.stringContaining('credits must be more than 0') })
    expect(zero).toMatchObject({ code: 2, stderr: expect.stringContaining('credits must be more than 0') })
    expect((await accountOf(id)).balance).toBe(10)

    const added = await cli('credits', 'add', '--account', id, '--credits', '2.5', '--plan', 'starter', '--json')
    expect(added.code).toBe(0)
    expect(JSON.parse(added.stdout)).toMatchObject({ id, balance: 12.5, plan: 'starter' })
    expect(await accountOf(id)).toMatchObject({ balance: 12.5, plan: 'starter' })

    const unknown = await cli('credits', 'add', '--account', 'no-such-account', '--credits', '1')
    expect(unknown).toMatchObject({ code: 1, stderr: expect.stringMatching(/\ntrawl: not_found: account no-such-account does not exist\n$/) })
  })

  test('keys create validates name and credit limit like the operator API', async () => {
    const { id } = await trawl.account()
    const [longName, badLimit] = await Promise.all([
      cli('keys', 'create', '--account', id, '--name', 'n'.repeat(65)),
      cli('keys', 'create', '--account', id, '--name', 'ci', '--credit-limit=-1'),
    ])
    expect(longName).toMatchObject({ code: 2, stderr: expect.stringContaining('name must be at most 64 characters') })
    expect(badLimit).toMatchObject({ code: 2, stderr: expect.stringContaining('credit_limit must be 0 or more') })
  })
})

describe('which database an operator command uses', () => {
  test("credits add, keys create and keys list take a user's email for --account, and say which database they opened", async () => {
    const email = `by-email-${Date.now()}@example.test`
    const { id } = await trawl.account({ email, credits: 1 })
    const added = await cli('credits', 'add', '--account', email.toUpperCase(), '--credits', '4', '--json')
    expect(added.code).toBe(0)
    expect(JSON.parse(added.stdout)).toMatchObject({ id, balance: 5 })
    expect(added.stderr).toBe(`trawl: database SQLite ${join(dir, 'trawl.db')} (TRAWL_DATABASE_URL)\n`)
    const key = await cli('keys', 'create', '--account', email, '--name', 'by email', '--json')
    expect(key.code).toBe(0)
    const { secret } = JSON.parse(key.stdout) as { secret: string }
    expect((await fetch(`${trawl.base}/v1/account`, { headers: { authorization: `Bearer ${secret}` } })).status).toBe(200)
    const listed = await cli('keys', 'list', '--account', email, '--json')
    expect((JSON.parse(listed.stdout) as { keys: { name: string }[] }).keys.map((k) => k.name)).toContain('by email')
    const nobody = await cli('keys', 'create', '--account', 'nobody@example.test', '--name', 'x')
    expect(nobody).toMatchObject({ code: 1, stderr: expect.stringContaining('no user has the email nobody@example.test') })
  })

  test("a command run without the server's TRAWL_DATABASE_URL says it used the default file; the server logs a hint for its key", async () => {
    const lines: string[] = []
    const serverDir = mkdtempSync(join(tmpdir(), 'trawl-cli-db-'))
    const elsewhere = mkdtempSync(join(tmpdir(), 'trawl-cli-cwd-'))
    const server = await startTrawl({ TRAWL_LOG_LEVEL: 'warn' }, { databaseDir: serverDir, logStream: { write: (line: string) => lines.push(line) } })
    try {
      const { TRAWL_DATABASE_URL: _, ...withoutUrl } = env
      const made = await promisify(execFile)(process.execPath, [TRAWL, 'accounts', 'create', '--email', 'trap@example.test', '--json'], {
        env: withoutUrl,
        cwd: elsewhere,
      })
      expect(made.stderr).toContain(
        `trawl: database SQLite ${join(elsewhere, 'data', 'trawl.db')} (the default: TRAWL_DATABASE_URL is unset; use the server's)`,
      )
      const { secret } = (JSON.parse(made.stdout) as { key: { secret: string } }).key
      const refused = await fetch(`${server.base}/v1/account`, { headers: { authorization: `Bearer ${secret}` } })
      expect(refused.status).toBe(401)
      await fetch(`${server.base}/v1/account`, { headers: { authorization: `Bearer ${secret}` } })
      const hints = lines.filter((line) => line.includes("is not in this server's database"))
      expect(hints).toHaveLength(1) // once a minute, not once a request
      expect(hints[0]).toContain(`SQLite ${join(serverDir, 'trawl.db')}`)
      expect(hints[0]).toContain('TRAWL_DATABASE_URL')
      expect(hints[0]).not.toContain(secret)
    } finally {
      await server.close()
      rmSync(serverDir, { recursive: true, force: true })
      rmSync(elsewhere, { recursive: true, force: true })
    }
  })
})

describe('accounts list and show, keys list, rotate and revoke', () => {
  const bearer = (secret: string) => fetch(`${trawl.base}/v1/account`, { headers: { authorization: `Bearer ${secret}` } })

  test('accounts list shows every account with its owner; accounts show one by id or by email', async () => {
    const email = `list-${Date.now()}@example.test`
    const created = JSON.parse((await cli('accounts', 'create', '--email', email, '--plan', 'starter', '--credits', '3', '--json')).stdout)
    const id: string = created.account.id

    const listed = await cli('accounts', 'list', '--json')
    expect(listed.code).toBe(0)
    const { accounts } = JSON.parse(listed.stdout) as { accounts: { id: string; owner_email: string; plan: string; balance: number }[] }
    expect(accounts.find((a) => a.id === id)).toMatchObject({ owner_email: email, plan: 'starter', balance: 3 })
    // The same account as the operator API reads it, plus the owner's email.
    const { owner_email: _, ...fromCli } = accounts.find((a) => a.id === id)!
    expect(fromCli).toEqual(await (await trawl.admin('GET', `/admin/v1/accounts/${id}`)).json())

    const table = await cli('accounts', 'list')
    expect(table.stdout).toMatch(/^id\s+owner\s+plan\s+balance\s+created$/m)
    expect(table.stdout).toMatch(new RegExp(`^${id}\\s+${email}\\s+starter\\s+3\\s`, 'm'))
    const first = JSON.parse((await cli('accounts', 'list', '--limit', '1', '--json')).stdout)
    expect(first.accounts).toHaveLength(1)

    const byId = JSON.parse((await cli('accounts', 'show', id, '--json')).stdout)
    expect(byId).toMatchObject({ account: { id, plan: 'starter' }, users: [{ email, role: 'owner' }], keys: [{ id: created.key.id, name: 'default' }] })
    const byEmail = await cli('accounts', 'show', email.toUpperCase())
    expect(byEmail.code).toBe(0)
    expect(byEmail.stdout).toMatch(new RegExp(`^id\\s+${id}$`, 'm'))
    expect(byEmail.stdout).toContain(created.key.id)
  })

  test('keys list, rotate and revoke act at once on the running server', async () => {
    const { id, key: firstSecret } = await trawl.account()
    const ci = JSON.parse((await cli('keys', 'create', '--account', id, '--name', 'ci', '--credit-limit', '5', '--json')).stdout)
    const listed = JSON.parse((await cli('keys', 'list', '--account', id, '--json')).stdout)
    expect(listed.keys.map((k: { name: string }) => k.name)).toEqual(['default', 'ci'])
    expect(listed.keys[1]).toMatchObject({ id: ci.id, prefix: ci.prefix, credit_limit: 5, credits_used_month: 0 })
    expect((await cli('keys', 'list', '--account', id)).stdout).toMatch(new RegExp(`^${ci.id}\\s+ci\\s+${ci.prefix}\\s+5\\s+0\\s`, 'm'))

    expect((await bearer(ci.secret)).status).toBe(200)
    const rotated = await cli('keys', 'rotate', ci.id, '--json')
    expect(rotated.code).toBe(0)
    const fresh = JSON.parse(rotated.stdout)
    expect(fresh).toMatchObject({ id: ci.id, name: 'ci', credit_limit: 5, secret: expect.stringMatching(/^trawl_live_/) })
    expect((await bearer(ci.secret)).status).toBe(401)
    expect((await bearer(fresh.secret)).status).toBe(200)

    const revoked = await cli('keys', 'revoke', ci.id)
    expect(revoked).toMatchObject({ code: 0, stdout: `key ${ci.id} revoked\n` })
    const refused = await bearer(fresh.secret)
    expect(refused.status).toBe(401)
    expect((await refused.json()).error.message).toBe('API key was revoked')
    expect(JSON.parse((await cli('keys', 'list', '--account', id, '--json')).stdout).keys.map((k: { id: string }) => k.id)).not.toContain(ci.id)
    expect((await bearer(firstSecret)).status).toBe(200) // the other key is untouched

    const again = await cli('keys', 'revoke', ci.id)
    expect(again).toMatchObject({ code: 1, stderr: expect.stringContaining(`\ntrawl: not_found: key ${ci.id} does not exist\n`) })
  })

  test('bad input is refused before anything changes', async () => {
    const [noKey, emptyId, noAccount, badLimit, unknownAccount, unknownEmail, extra, missingAccount] = await Promise.all([
      cli('keys', 'rotate'),
      cli('keys', 'revoke', ''),
      cli('keys', 'rotate', 'no-such-key'),
      cli('accounts', 'list', '--limit', '0'),
      cli('accounts', 'show', 'no-such-account'),
      cli('accounts', 'show', 'nobody@example.test'),
      cli('accounts', 'show', 'a', 'b'),
      cli('keys', 'list'),
    ])
    expect(noKey).toMatchObject({ code: 2, stderr: expect.stringContaining('trawl: missing <key-id>') })
    expect(noKey.stderr).toContain('usage: trawl keys rotate <key-id>')
    expect(emptyId).toMatchObject({ code: 2, stderr: expect.stringContaining('trawl: id: Too small') })
    expect(noAccount).toMatchObject({ code: 1, stderr: expect.stringMatching(/\ntrawl: not_found: key no-such-key does not exist\n$/) })
    expect(badLimit).toMatchObject({ code: 2, stderr: expect.stringContaining('trawl: limit must be between 1 and 1,000') })
    expect(unknownAccount).toMatchObject({ code: 1, stderr: expect.stringMatching(/\ntrawl: not_found: account no-such-account does not exist\n$/) })
    expect(unknownEmail).toMatchObject({ code: 1, stderr: expect.stringMatching(/\ntrawl: not_found: no user has the email nobody@example.test\n$/) })
    expect(extra).toMatchObject({ code: 2, stderr: expect.stringContaining('unexpected argument "b"') })
    expect(missingAccount).toMatchObject({ code: 2, stderr: expect.stringContaining('--account is required') })
  })

  test('accounts create takes the operator API’s other fields, checked by its schema', async () => {
    const [capped, badRate] = await Promise.all([
      cli('accounts', 'create', '--email', `cap-${Date.now()}@example.test`, '--monthly-spend-cap', '50', '--rate-limit-rps', '7', '--json'),
      cli('accounts', 'create', '--email', 'rate@example.test', '--rate-limit-rps', '0'),
    ])
    expect(JSON.parse(capped.stdout).account).toMatchObject({ monthly_spend_cap: 50, rate_limit_rps: 7 })
    expect(badRate).toMatchObject({ code: 2, stderr: expect.stringContaining('rate_limit_rps must be at least 1') })
  })
})
