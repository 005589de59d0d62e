import { Worker } from 'node:worker_threads'
import { srcFile } from '../../paths.ts'
import { GateError, type PowJob, type PowSolution, type PowSolver } from './gate.types.ts'

export interface PowSolverOptions {
  /** The cap on one solve, thread start included: past it the thread is ended and the solve refused. */
  timeoutMs: number
  /** The highest Anubis difficulty (hex zeros) tried at all; above it the solve is refused at once (default 6). */
  maxDifficulty?: number
  /** Each solve's outcome and the milliseconds it took (metrics). */
  onSolve?: (gate: string, outcome: 'solved' | 'too_hard' | 'failed', ms: number) => void
}

/** The highest Anubis difficulty: 64 hex zeros is the whole SHA-256 (Anubis refuses more in its config). */
const MAX_ANUBIS_DIFFICULTY = 64

/**
 * Proof of work off the event loop: each solve runs on a worker thread of its own
 * (pow.worker.cjs), ended when it passes the cap. Solves are rare (the cookies they earn are kept
 * and shared), so a thread per solve costs less than a pool kept alive for them.
 */
export function createPowSolver(opts: PowSolverOptions): PowSolver {
  const maxDifficulty = opts.maxDifficulty ?? 6
  const report = (gate: string, outcome: 'solved' | 'too_hard' | 'failed', ms: number) => opts.onSolve?.(gate, outcome, ms)

  return (job: PowJob, gate: string) => {
    const invalid = invalidJob(job)
    if (invalid) {
      report(gate, 'failed', 0)
      return Promise.reject(new GateError(invalid))
    }
    if (job.kind === 'sha256-prefix' && job.difficulty > maxDifficulty) {
      report(gate, 'too_hard', 0)
      return Promise.reject(new GateError(`proof of work of difficulty ${job.difficulty} is above the limit of ${maxDifficulty}`))
    }
    return new Promise<PowSolution>((resolve, reject) => {
      const started = performance.now()
      let settled = false
      const worker = new Worker(srcFile('engines/gates/pow.worker.cjs'), { workerData: job })
      const finish = (outcome: 'solved' | 'too_hard' | 'failed', result: PowSolution | GateError) => {
        if (settled) return
        settled = true
        clearTimeout(timer)
        void worker.terminate()
        report(gate, outcome, outcome === 'solved' ? (result as PowSolution).ms : Math.round(performance.now() - started))
        if (result instanceof GateError) reject(result)
        else resolve(result)
      }
      const timer = setTimeout(
        () => finish('too_hard', new GateError(`proof of work harder than the ${opts.timeoutMs} ms cap (${describeJob(job)})`)),
        opts.timeoutMs,
      )
      worker.once('message', (m: { nonce?: number; hash?: string; ms?: number; error?: string }) => {
        if (m.error !== undefined || typeof m.nonce !== 'number') return finish('failed', new GateError(`proof of work failed: ${m.error ?? 'no answer'}`))
        finish('solved', { nonce: m.nonce, ...(m.hash ? { hash: m.hash } : {}), ms: Math.round(m.ms ?? performance.now() - started) })
      })
      worker.once('error', (err) => finish('failed', new GateError(`proof of work failed: ${err.message}`)))
      worker.once('exit', (code) => finish('failed', new GateError(`proof of work failed: its thread exited (${code})`)))
    })
  }
}

/** Why a job cannot be run at all, or null (the parameters come from an engine's page: nothing is assumed). */
function invalidJob(job: PowJob): string | null {
  switch (job.kind) {
    case 'sha256-prefix':
      if (typeof job.challenge !== 'string' || job.challenge === '') return 'the challenge has no data to hash'
      if (!Number.isInteger(job.difficulty) || job.difficulty < 0 || job.difficulty > MAX_ANUBIS_DIFFICULTY) return `invalid difficulty ${job.difficulty}`
      return null
    case 'altcha-hash':
      if (typeof job.salt !== 'string' || typeof job.challenge !== 'string' || !/^[0-9a-f]+$/i.test(job.challenge)) return 'the challenge is not a hex digest'
      if (!Number.isSafeInteger(job.maxNumber) || job.maxNumber < 0) return `invalid maxnumber ${job.maxNumber}`
      return null
    case 'altcha-kdf': {
      const p = job.params
      if (!p || typeof p !== 'object') return 'the challenge has no parameters'
      for (const field of ['nonce', 'salt', 'keyPrefix'] as const) {
        if (typeof p[field] !== 'string' || !/^[0-9a-f]*$/i.test(p[field] as string)) return `the challenge's ${field} is not hex`
      }
      if (typeof p.algorithm !== 'string') return 'the challenge names no algorithm'
      return null
    }
    default:
      return `unknown proof-of-work kind ${(job as { kind: unknown }).kind}`
  }
}

/** A few words on the job's size, for the reason of a refusal. */
function describeJob(job: PowJob): string {
  switch (job.kind) {
    case 'sha256-prefix':
      return `difficulty ${job.difficulty}`
    case 'altcha-hash':
      return `${job.algorithm}, numbers up to ${job.maxNumber}`
    case 'altcha-kdf':
      return `${String(job.params.algorithm)}, cost ${String(job.params.cost)}`
  }
}
