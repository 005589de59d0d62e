/**
 * The idle server's memory, measured from outside: the server started as `npm start` starts it
 * (`node <its flags> bin/trawl.mjs serve`, SQLite in a temp dir, the default configuration but
 * for the port), left alone once /healthz answers, then the RSS of its whole process tree (the
 * node process and any child: an esbuild service left running would show) summed from /proc.
 * Against the budget of docs/performance.md (120 MB) and, as a ratio, against a bare Fastify
 * server started with the same node flags in the same run. PSS is printed too (shared pages
 * split between the processes that map them); the budget is on RSS.
 * Run: npm run bench:idle
 */

import { type ChildProcess, spawn } from 'node:child_process'
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { freePort } from '../test/support/free-port.ts'

const BUDGET_MB = 120
const IDLE_S = Number(process.env.BENCH_IDLE_SECONDS ?? 5)
const ROOT = resolve(import.meta.dirname, '..')
/** `npm start`'s node arguments (package.json): the flags, the script and `serve`. */
const START_ARGS = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: { start: string } }).scripts.start.split(' ').slice(1)
const NODE_FLAGS = START_ARGS.filter((arg) => arg.startsWith('--'))

const BARE_FASTIFY = `
import Fastify from 'fastify'
const app = Fastify({ logger: false })
app.get('/healthz', async () => ({ status: 'ok' }))
await app.listen({ host: '127.0.0.1', port: Number(process.env.PORT) })
`

interface Proc {
  pid: number
  ppid: number
  rssKb: number
  pssKb: number
  command: string
}

function readProc(pid: number): Proc | null {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8')
    const field = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+)`, 'm').exec(status)?.[1] ?? 0)
    let pssKb = 0
    try {
      pssKb = Number(/^Pss:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'))?.[1] ?? 0)
    } catch {}
    const command = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').trim()
    return { pid, ppid: field('PPid'), rssKb: field('VmRSS'), pssKb, command }
  } catch {
    return null // gone meanwhile
  }
}

/** The process and every descendant, from /proc (Linux). */
function processTree(root: number): Proc[] {
  const all = readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .map((name) => readProc(Number(name)))
    .filter((p): p is Proc => p !== null)
  const tree: Proc[] = []
  const pending = [root]
  while (pending.length > 0) {
    const pid = pending.shift() as number
    const proc = all.find((p) => p.pid === pid)
    if (!proc) continue
    tree.push(proc)
    pending.push(...all.filter((p) => p.ppid === pid).map((p) => p.pid))
  }
  return tree
}

async function waitForHealth(url: string, child: ChildProcess, output: () => string) {
  const deadline = Date.now() + 60_000
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`the server exited (${child.exitCode}):\n${output()}`)
    try {
      if ((await fetch(url)).ok) return
    } catch {}
    await new Promise((r) => setTimeout(r, 100))
  }
  throw new Error(`${url} did not answer:\n${output()}`)
}

/** Starts `args` with `env`, waits for /healthz and IDLE_S seconds of quiet, measures, stops it. */
async function idleFootprint(args: string[], env: Record<string, string>, port: number) {
  let output = ''
  const child = spawn(process.execPath, args, { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] })
  child.stdout!.on('data', (d) => (output = (output + d).slice(-4000)))
  child.stderr!.on('data', (d) => (output = (output + d).slice(-4000)))
  try {
    await waitForHealth(`http://127.0.0.1:${port}/healthz`, child, () => output)
    await new Promise((r) => setTimeout(r, IDLE_S * 1000))
    const tree = processTree(child.pid!)
    return { tree, rssMb: tree.reduce((sum, p) => sum + p.rssKb, 0) / 1024, pssMb: tree.reduce((sum, p) => sum + p.pssKb, 0) / 1024 }
  } finally {
    const exited = new Promise((r) => child.once('exit', r))
    child.kill('SIGTERM')
    await Promise.race([exited, new Promise((r) => setTimeout(r, 10_000))])
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
  }
}

const dir = mkdtempSync(join(tmpdir(), 'trawl-idle-'))
try {
  const port = await freePort()
  const trawl = await idleFootprint(
    START_ARGS,
    { TRAWL_DATABASE_URL: `sqlite:${join(dir, 'trawl.db')}`, TRAWL_PORT: String(port), TRAWL_HOST: '127.0.0.1' },
    port,
  )
  const barePort = await freePort()
  const bare = await idleFootprint([...NODE_FLAGS, '--input-type=module', '-e', BARE_FASTIFY], { PORT: String(barePort) }, barePort)

  console.log(`idle footprint after /healthz and ${IDLE_S} s of quiet (RSS summed over the process tree, from /proc)`)
  console.log('trawl serve, as npm start runs it:')
  for (const p of trawl.tree)
    console.log(`  pid ${p.pid}  ${(p.rssKb / 1024).toFixed(1)} MB RSS  ${(p.pssKb / 1024).toFixed(1)} MB PSS  ${p.command.slice(0, 100)}`)
  console.log(`  total ${trawl.rssMb.toFixed(1)} MB RSS, ${trawl.pssMb.toFixed(1)} MB PSS, ${trawl.tree.length} process(es)`)
  console.log(`bare Fastify (${NODE_FLAGS.join(' ')}): ${bare.rssMb.toFixed(1)} MB RSS, ${bare.pssMb.toFixed(1)} MB PSS`)
  console.log(`ratio: ${(trawl.rssMb / bare.rssMb).toFixed(2)}x bare Fastify`)
  console.log(`budget ${BUDGET_MB} MB RSS: ${trawl.rssMb <= BUDGET_MB ? 'met' : 'NOT met'}`)
} finally {
  rmSync(dir, { recursive: true, force: true })
}
