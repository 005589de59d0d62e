/**
 * What every proof needs: the machine's PostgreSQL and Redis (started when missing, and always
 * left running), a fresh database per run, API and worker processes spawned as an operator runs
 * them (`trawl serve` with TRAWL_WORKERS=false, `trawl worker`), and the one line of figures.
 * Loopback only.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { closeSync, mkdirSync, openSync, readdirSync } from 'node:fs'
import type { IncomingMessage } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pg from 'pg'
import { openStore, type Store } from '../../src/store/database.ts'
import { type FakeUpstream, fakeUpstream, fixture } from '../../test/support/fake-upstream.ts'
import { freePort } from '../../test/support/free-port.ts'
import { createTestDatabase, POSTGRES_ADMIN_URL } from '../../test/support/postgres.ts'
import { reachable } from '../../test/support/reachable.ts'

const TRAWL = new URL('../../bin/trawl.mjs', import.meta.url).pathname
export const ADMIN_TOKEN = 'proof-admin-token-0123456789'
/** Where the spawned processes' logs go, one file per process. */
export const LOG_DIR = join(tmpdir(), `trawl-proof-${process.pid}`)

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

export async function waitFor<T>(check: () => Promise<T | undefined | null | false>, timeoutMs: number, what: string): Promise<T> {
  const until = Date.now() + timeoutMs
  for (;;) {
    const value = await check().catch(() => undefined)
    if (value) return value
    if (Date.now() > until) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`)
    await sleep(100)
  }
}

// ---- PostgreSQL and Redis: the machine's servers ----

const pgVersion = () => readdirSync('/etc/postgresql')[0] ?? '15'

export function postgresCtl(action: 'start' | 'stop' | 'restart') {
  // stop and restart use pg_ctl's fast mode: open connections are cut, as in a crash or a failover.
  execFileSync('pg_ctlcluster', ['--skip-systemctl-redirect', pgVersion(), 'main', action], { stdio: 'ignore' })
}

export async function postgresUp(): Promise<boolean> {
  if (!(await reachable(5432))) return false
  const c = new pg.Client({ connectionString: POSTGRES_ADMIN_URL, connectionTimeoutMillis: 2000 })
  try {
    await c.connect()
    await c.query('select 1')
    return true
  } catch {
    return false
  } finally {
    await c.end().catch(() => {})
  }
}

export function redisCtl(action: 'start' | 'stop') {
  if (action === 'stop') execFileSync('redis-cli', ['-p', '6379', 'shutdown', 'nosave'], { stdio: 'ignore' })
  else
    execFileSync(
      'redis-server',
      [
        '--daemonize',
        'yes',
        '--bind',
        '127.0.0.1',
        '-::1',
        '--port',
        '6379',
        '--save',
        '',
        '--appendonly',
        'no',
        '--dir',
        '/tmp',
        '--logfile',
        '/tmp/redis-proof.log',
      ],
      { stdio: 'ignore' },
    )
}

/** Starts PostgreSQL and Redis when they are not running; both stay running after the proof. */
export async function ensureServers() {
  if (!(await postgresUp())) {
    try {
      postgresCtl('start')
    } catch {}
    await waitFor(postgresUp, 30_000, 'PostgreSQL to start')
  }
  if (!(await reachable(6379))) {
    redisCtl('start')
    await waitFor(() => reachable(6379), 10_000, 'Redis to start')
  }
}

/** A fresh database for this run, dropped after (the tests' helper: same server, own name). */
export const freshDatabase = createTestDatabase

/** A Redis database index of its own (1-15; tests use 0), so the proof's keys never meet theirs. */
const proofRedisUrl = () => `redis://127.0.0.1:6379/${8 + Math.floor(Math.random() * 8)}`

const ANSWER = fixture('serp/wikipedia/api/android-full-text-search-generator.json')

/** The engine the proofs search: a saved Wikipedia answer after `delayMs` (20 ms: calls overlap in each process). */
export const slowEngine = (delayMs: (req: IncomingMessage) => number = () => 20) =>
  fakeUpstream((req, res) => {
    setTimeout(() => res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' }).end(ANSWER), delayMs(req))
  })

/** What every process of a proof shares: its fresh database, a Redis index of its own, the engine. */
export const proofEnv = (db: { url: string }, engine: FakeUpstream) => ({
  TRAWL_DATABASE_URL: db.url,
  TRAWL_REDIS_URL: proofRedisUrl(),
  TRAWL_UPSTREAM_HOSTS: `*=${engine.url}`,
})

// ---- Trawl processes ----

export interface TrawlProcess {
  name: string
  child: ChildProcess
  base: string
  exited: Promise<number | null>
  kill(signal: NodeJS.Signals): Promise<void>
}

let spawned = 0
const running = new Set<TrawlProcess>()

function start(name: string, args: string[], env: Record<string, string>, base: string): TrawlProcess {
  mkdirSync(LOG_DIR, { recursive: true })
  const log = openSync(join(LOG_DIR, `${++spawned}-${name}.log`), 'a')
  const child = spawn(process.execPath, [TRAWL, ...args], {
    env: { ...process.env, TRAWL_LOG_LEVEL: 'warn', TRAWL_ADMIN_TOKEN: ADMIN_TOKEN, ...env },
    stdio: ['ignore', log, log],
  })
  closeSync(log)
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
  const proc: TrawlProcess = {
    name,
    child,
    base,
    exited,
    async kill(signal) {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal)
      await exited
      running.delete(proc)
    },
  }
  running.add(proc)
  void exited.then(() => running.delete(proc))
  return proc
}

/** `trawl serve` on a port of its own, API only; resolves once /livez answers. */
export async function startApi(name: string, env: Record<string, string>): Promise<TrawlProcess> {
  const port = await freePort()
  const base = `http://127.0.0.1:${port}`
  const proc = start(name, ['serve'], { ...env, TRAWL_PORT: String(port), TRAWL_HOST: '127.0.0.1', TRAWL_WORKERS: 'false' }, base)
  await waitFor(
    async () => {
      if (proc.child.exitCode !== null) throw new Error(`${name} exited with ${proc.child.exitCode}; see ${LOG_DIR}`)
      return (await fetch(`${base}/livez`)).ok
    },
    30_000,
    `${name} to listen`,
  ).catch(async (e) => {
    await proc.kill('SIGKILL')
    throw e
  })
  return proc
}

/** `trawl worker`: background work only. */
export function startWorker(name: string, env: Record<string, string>): TrawlProcess {
  return start(name, ['worker'], env, '')
}

/** SIGKILLs whatever the proof spawned and did not stop itself (a failed run). */
export async function killAll() {
  await Promise.all([...running].map((p) => p.kill('SIGKILL')))
}

export async function createAccount(base: string, body: Record<string, unknown>): Promise<{ id: string; key: string }> {
  const res = await fetch(`${base}/admin/v1/accounts`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ email: `${randomBytes(6).toString('hex')}@proof.test`, ...body }),
  })
  if (res.status !== 201) throw new Error(`account create failed: ${res.status} ${await res.text()}`)
  const json = (await res.json()) as { account: { id: string }; key: { secret: string } }
  return { id: json.account.id, key: json.key.secret }
}

// ---- The books ----

export interface Books {
  startMc: number
  balanceMc: number
  debitsMc: number
  refundsMc: number
  ledgerSumMc: number
  openHolds: number
  /** Ledger rows whose balance after went below zero. */
  overdrafts: number
  /** balance + debits - refunds = purchases, the ledger sums to the balance, nothing below zero. */
  exact: boolean
}

export async function openBooks(url: string): Promise<Store> {
  return openStore(url, { migrate: false })
}

export async function books(store: Store, accountId: string): Promise<Books> {
  const rows = await store.db.selectFrom('ledger').select(['kind', 'amount_mc', 'balance_after_mc']).where('account_id', '=', accountId).execute()
  const sum = (kinds: string[]) => rows.filter((r) => kinds.includes(r.kind)).reduce((n, r) => n + Number(r.amount_mc), 0)
  const { balance_mc: balanceMc } = await store.db.selectFrom('accounts').select('balance_mc').where('id', '=', accountId).executeTakeFirstOrThrow()
  const open = await store.db.selectFrom('reservations').select('id').where('account_id', '=', accountId).execute()
  const startMc = sum(['purchase'])
  const debitsMc = -sum(['charge', 'reserve'])
  const refundsMc = sum(['refund'])
  const ledgerSumMc = rows.reduce((n, r) => n + Number(r.amount_mc), 0)
  const overdrafts = rows.filter((r) => Number(r.balance_after_mc) < 0).length + (balanceMc < 0 ? 1 : 0)
  return {
    startMc,
    balanceMc,
    debitsMc,
    refundsMc,
    ledgerSumMc,
    openHolds: open.length,
    overdrafts,
    exact: balanceMc + debitsMc - refundsMc === startMc && ledgerSumMc === balanceMc && overdrafts === 0,
  }
}

/** Net millicredits the ledger took per request id (debits minus refunds). */
export async function netByRequest(store: Store, accountId: string): Promise<Map<string, { netMc: number; debits: number; refunds: number }>> {
  const rows = await store.db
    .selectFrom('ledger')
    .select(['request_id', 'kind', 'amount_mc'])
    .where('account_id', '=', accountId)
    .where('request_id', 'is not', null)
    .execute()
  const byId = new Map<string, { netMc: number; debits: number; refunds: number }>()
  for (const r of rows) {
    const entry = byId.get(r.request_id as string) ?? { netMc: 0, debits: 0, refunds: 0 }
    entry.netMc -= Number(r.amount_mc)
    if (r.kind === 'refund') entry.refunds++
    else entry.debits++
    byId.set(r.request_id as string, entry)
  }
  return byId
}

/**
 * Each answered call's net ledger amount against what its answer said it cost
 * (`X-Credits-Used`): more is double-billed, less is under-billed.
 */
export async function billingAgainstAnswers(store: Store, accountId: string, outcomes: { requestId: string | null; usedMc: number }[]) {
  const net = await netByRequest(store, accountId)
  let doubleBilled = 0
  let underBilled = 0
  for (const o of outcomes) {
    if (!o.requestId) continue
    const taken = net.get(o.requestId)?.netMc ?? 0
    if (taken > o.usedMc) doubleBilled++
    if (taken < o.usedMc) underBilled++
  }
  return { net, doubleBilled, underBilled }
}

export const credits = (mc: number) => String(mc / 1000)

/** The proof's one line: `proof:<name> tried N, succeeded N, lost N, double-billed N, …`. */
export function figures(name: string, fields: Record<string, string | number | boolean>): string {
  const line = `proof:${name} ${Object.entries(fields)
    .map(([k, v]) => `${k} ${v}`)
    .join(', ')}`
  console.log(line)
  return line
}

/** Runs a proof: servers up, and whatever happens every spawned process is stopped and both servers are left running. */
export async function runProof(fn: () => Promise<boolean>) {
  let ok = false
  try {
    await ensureServers()
    ok = await fn()
  } catch (e) {
    console.error(e)
  } finally {
    await killAll()
    await ensureServers().catch((e) => console.error('could not bring PostgreSQL/Redis back:', e))
  }
  console.log(ok ? 'PASS' : `FAIL (process logs in ${LOG_DIR})`)
  process.exit(ok ? 0 : 1)
}
