// PLACEHOLDER written by the lead so the upstream client compiles; helper-1 replaces this file whole.
import { GateError, type PowSolver } from './gate.types.ts'

export function createPowSolver(_opts: {
  timeoutMs: number
  maxDifficulty?: number
  onSolve?: (gate: string, outcome: 'solved' | 'too_hard' | 'failed', ms: number) => void
}): PowSolver {
  return async () => {
    throw new GateError('no solver yet')
  }
}
