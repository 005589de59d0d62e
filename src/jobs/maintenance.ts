import type { FastifyBaseLogger } from 'fastify'

/**
 * One housekeeping task: refund what a crashed process left reserved, prune rows past their
 * retention, and so on. Features define them; the composition root (services.ts) registers them.
 * Each must be safe to run in several processes at once.
 */
export interface Sweep {
  /** Does one round; returns how many rows it handled. */
  run(now: number): Promise<number>
  /** Logged when a round handled any row, with the count under `field`. */
  field: string
  message: string
  level: 'debug' | 'info' | 'warn'
}

/** Runs every sweep now and then every `everyMs`, one round at a time, in every worker process. */
export function startMaintenance(sweeps: readonly Sweep[], log: FastifyBaseLogger, everyMs = 60_000) {
  let running = false
  const tick = async () => {
    if (running) return
    running = true
    try {
      for (const sweep of sweeps) {
        const count = await sweep.run(Date.now())
        if (count > 0) log[sweep.level]({ [sweep.field]: count }, sweep.message)
      }
    } catch (err) {
      log.error({ err }, 'maintenance failed; will retry')
    } finally {
      running = false
    }
  }
  void tick()
  const timer = setInterval(tick, everyMs)
  timer.unref()
  return { stop: () => clearInterval(timer) }
}
