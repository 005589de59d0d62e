/**
 * CPU cost of one proof-of-work solve of the engines' gates (src/engines/gates/pow.ts), on this
 * machine, through the real solver: a worker thread per solve.
 *
 * - Anubis at difficulty 4 (Startpage's in 2026, searxng/searxng PR #6669): 16^4 = 65,536 hashes
 *   expected per solve, geometric spread.
 * - Altcha v2 PBKDF2/SHA-256 as Mojeek serves it (searxng/searxng PR #6696): the cost is not
 *   public; altcha-lib's README example is cost 5,000 with the secret counter in [5,000, 10,000),
 *   and SearXNG's solver gives up after 1,000 counters, which says Mojeek's counter is below that.
 *   Both are measured: per derivation, and whole solves.
 *
 * Run: npm run bench:pow
 */
import { createHash, pbkdf2Sync, randomBytes, randomInt } from 'node:crypto'
import { cpus, loadavg } from 'node:os'
import type { PowJob } from '../src/engines/gates/gate.types.ts'
import { createPowSolver } from '../src/engines/gates/pow.ts'

const solve = createPowSolver({ timeoutMs: 60_000, maxDifficulty: 8 })

interface Row {
  wallMs: number
  cpuMs: number
  workerMs: number
  nonce: number
}

async function run(job: () => PowJob, n: number): Promise<Row[]> {
  const rows: Row[] = []
  for (let i = 0; i < n; i++) {
    const cpu0 = process.cpuUsage()
    const t0 = performance.now()
    const found = await solve(job(), 'bench')
    const cpu = process.cpuUsage(cpu0)
    rows.push({ wallMs: performance.now() - t0, cpuMs: (cpu.user + cpu.system) / 1000, workerMs: found.ms, nonce: found.nonce })
  }
  return rows
}

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? 0
}
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length)
const f = (x: number) => x.toFixed(1)

function report(name: string, rows: Row[]) {
  const wall = rows.map((r) => r.wallMs)
  const cpu = rows.map((r) => r.cpuMs)
  console.log(
    `${name.padEnd(46)} n=${String(rows.length).padStart(3)}  wall ms mean ${f(mean(wall))} p50 ${f(pct(wall, 50))} p90 ${f(pct(wall, 90))} max ${f(Math.max(...wall))}` +
      `  | cpu ms mean ${f(mean(cpu))} p90 ${f(pct(cpu, 90))}  | worker loop ms mean ${f(mean(rows.map((r) => r.workerMs)))}  | mean nonce ${Math.round(mean(rows.map((r) => r.nonce)))}`,
  )
}

/** A v2 challenge in altcha-lib's deterministic mode: the counter drawn from [lo, hi). */
function altchaV2(cost: number, lo: number, hi: number): PowJob {
  const nonce = randomBytes(16).toString('hex')
  const salt = randomBytes(16).toString('hex')
  const password = Buffer.concat([Buffer.from(nonce, 'hex'), Buffer.alloc(4)])
  password.writeUInt32BE(randomInt(lo, hi), 16)
  const key = pbkdf2Sync(password, Buffer.from(salt, 'hex'), cost, 32, 'sha256')
  return { kind: 'altcha-kdf', params: { algorithm: 'PBKDF2/SHA-256', cost, keyLength: 32, keyPrefix: key.subarray(0, 16).toString('hex'), nonce, salt } }
}

console.log(
  `node ${process.version}, ${cpus()[0]?.model ?? 'cpu'} x${cpus().length}, load ${loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}`,
)

// The thread alone: a job solved by its first try.
report('thread start and stop (difficulty 0)', await run(() => ({ kind: 'sha256-prefix', challenge: randomBytes(64).toString('hex'), difficulty: 0 }), 20))

const anubis = await run(() => ({ kind: 'sha256-prefix', challenge: randomBytes(64).toString('hex'), difficulty: 4 }), 60)
report('anubis difficulty 4 (Startpage)', anubis)
const hashes = anubis.reduce((a, r) => a + r.nonce + 1, 0)
const workerRate = hashes / anubis.reduce((a, r) => a + r.workerMs, 0)
// Baseline in the same run: the same hashes in a bare loop on this thread (createHash per nonce).
const bareChallenge = randomBytes(64).toString('hex')
const bareStart = performance.now()
for (let nonce = 0; nonce < 200_000; nonce++)
  createHash('sha256')
    .update(bareChallenge + nonce)
    .digest('hex')
const bareRate = 200_000 / (performance.now() - bareStart)
console.log(
  `  SHA-256 in the worker: ${Math.round(workerRate)} hashes per ms of its loop; bare loop on the main thread: ${Math.round(bareRate)}; ratio ${(workerRate / bareRate).toFixed(2)}`,
)
report('anubis difficulty 5', await run(() => ({ kind: 'sha256-prefix', challenge: randomBytes(64).toString('hex'), difficulty: 5 }), 10))

// One PBKDF2/SHA-256 derivation at cost 5,000, in this thread.
const pw = randomBytes(20)
const salt = randomBytes(16)
const t0 = performance.now()
for (let i = 0; i < 200; i++) pbkdf2Sync(pw, salt, 5000, 32, 'sha256')
const perDerivation = (performance.now() - t0) / 200
console.log(`  one PBKDF2/SHA-256 derivation, cost 5000: ${perDerivation.toFixed(3)} ms`)

report('altcha v2 cost 5000, counter < 1000 (SearXNG cap)', await run(() => altchaV2(5000, 0, 1000), 10))
report('altcha v2 cost 5000, counter 5000-10000 (README)', await run(() => altchaV2(5000, 5000, 10_000), 5))
report('altcha v2 cost 1000, counter < 1000', await run(() => altchaV2(1000, 0, 1000), 10))
