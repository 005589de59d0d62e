import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'

type GcFunction = (options: { type: 'major'; execution: 'sync'; flavor: 'last-resort' }) => void

/**
 * One full, compacting collection once the server has started: loading and compiling the app
 * leaves the old generation about a quarter empty in page fragments, and an idle server gives V8
 * no reason to collect again, so about 15 MB would stay resident for nothing (docs/performance.md).
 * V8's `gc` is reached without `--expose-gc` on the command line, and only for this call: it
 * exists in a context made while the flag is on, which is turned off again at once.
 */
export function compactHeap(): void {
  setFlagsFromString('--expose-gc')
  let gc: GcFunction
  try {
    gc = runInNewContext('gc') as GcFunction
  } finally {
    setFlagsFromString('--no-expose-gc')
  }
  gc({ type: 'major', execution: 'sync', flavor: 'last-resort' })
}
