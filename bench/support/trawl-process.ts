import { type ChildProcess, spawn } from 'node:child_process'
import { closeSync, createWriteStream, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { freePort } from '../../test/support/free-port.ts'

/**
 * Trawl as `npm start` runs it, in a process of its own (`node <its flags> bin/trawl.mjs serve`, SQLite in a
 * temp dir, background workers on), with one enterprise account: what the benches measure from
 * outside, so that the server's memory, CPU and pauses are its own and not the bench's.
 */
export interface TrawlProcess {
  base: string
  /** The account's API key. */
  key: string
  pid: number
  /** GET/POST with the key. */
  call(method: string, path: string, body?: unknown): Promise<Response>
  close(): Promise<void>
}

const ADMIN_TOKEN = 'bench-admin-token-0123456789'
const ROOT = resolve(import.meta.dirname, '../..')
/** USER_HZ: 100 on every Linux this runs on. */
const CLOCK_TICKS = 100

/** Peak RSS of a live process from /proc (Linux), MB; 0 where there is no /proc. */
export function peakRssMb(pid: number): number {
  try {
    const kb = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]
    return kb ? Number(kb) / 1024 : 0
  } catch {
    return 0
  }
}

/** CPU time of a live process so far (utime + stime from /proc, Linux), ms; 0 where there is no /proc. */
export function cpuMsOf(pid: number): number {
  try {
    // Fields after the command name (which may hold spaces): state is the 1st, utime the 12th, stime the 13th.
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS
  } catch {
    return 0
  }
}

async function waitForServer(base: string, child: ChildProcess, output: () => string) {
  const deadline = Date.now() + 30_000
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`trawl serve exited (${child.exitCode}):\n${output()}`)
    try {
      if ((await fetch(`${base}/livez`)).ok) return
    } catch {}
    await new Promise((r) => setTimeout(r, 100))
  }
  throw new Error(`trawl serve did not start:\n${output()}`)
}

/** The node flags `npm start` gives the server (package.json), so that the benches run it the same way. */
export const START_FLAGS = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: { start: string } }).scripts.start
  .split(' ')
  .filter((arg) => arg.startsWith('--'))

/**
 * Starts the server with `env` on top of a bench configuration; BENCH_NODE_ARGS adds node flags (e.g. --cpu-prof).
 * `logToFile`: the server's stdout (its log lines) goes to a file in its temp dir, as a deployment's
 * log would, instead of through a pipe the bench reads (which would cost the bench's CPU per line).
 */
export async function startTrawlProcess(env: Record<string, string> = {}, opts: { logToFile?: boolean } = {}): Promise<TrawlProcess> {
  const dir = mkdtempSync(join(tmpdir(), 'trawl-bench-'))
  const logFd = opts.logToFile ? openSync(join(dir, 'stdout.log'), 'w') : null
  const port = await freePort()
  const base = `http://127.0.0.1:${port}`
  let output = ''
  const nodeArgs = (process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean)
  const child = spawn(process.execPath, [...START_FLAGS, ...nodeArgs, 'bin/trawl.mjs', 'serve'], {
    cwd: ROOT,
    env: {
      ...process.env,
      TRAWL_DATABASE_URL: `sqlite:${join(dir, 'trawl.db')}`,
      TRAWL_ADMIN_TOKEN: ADMIN_TOKEN,
      TRAWL_PORT: String(port),
      TRAWL_HOST: '127.0.0.1',
      TRAWL_ALLOW_PRIVATE_NETWORK: 'true',
      TRAWL_LOG_LEVEL: 'warn',
      ...env,
    },
    stdio: ['ignore', logFd ?? 'pipe', 'pipe'],
  })
  if (logFd !== null) closeSync(logFd)
  child.stdout?.on('data', (d) => (output = (output + d).slice(-4000)))
  child.stderr!.on('data', (d) => (output = (output + d).slice(-4000)))
  // BENCH_SERVER_OUTPUT=<file>: keep all the server printed (e.g. with BENCH_NODE_ARGS=--trace-gc).
  const keep = process.env.BENCH_SERVER_OUTPUT ? createWriteStream(process.env.BENCH_SERVER_OUTPUT, { flags: 'a' }) : null
  if (keep) for (const stream of [child.stdout, child.stderr]) stream?.on('data', (d) => keep.write(d))
  const close = async () => {
    const exited = new Promise((r) => child.once('exit', r))
    child.kill('SIGTERM')
    await Promise.race([exited, new Promise((r) => setTimeout(r, 10_000))])
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
    rmSync(dir, { recursive: true, force: true })
  }
  try {
    await waitForServer(base, child, () => output)
    const admin = await fetch(`${base}/admin/v1/accounts`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'bench@example.test', plan: 'enterprise', rate_limit_rps: 100000, credits: 10_000_000 }),
    })
    if (admin.status !== 201) throw new Error(`account create failed: ${admin.status} ${await admin.text()}`)
    const key = ((await admin.json()) as { key: { secret: string } }).key.secret
    const call = (method: string, path: string, body?: unknown) =>
      fetch(`${base}${path}`, {
        method,
        headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      })
    return { base, key, pid: child.pid!, call, close }
  } catch (err) {
    await close()
    throw err
  }
}
