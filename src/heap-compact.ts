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
function compactHeap(): void {
  setFlagsFromString('--expose-gc')
  let gc: GcFunction
  try {
    gc = runInNewContext('gc') as GcFunction
  } finally {
    setFlagsFromString('--no-expose-gc')
  }
  gc({ type: 'major', execution: 'sync', flavor: 'last-resort' })
}

/** How often compactWhenIdle looks, and for how long: a server busy that long collects on its own. */
const LOOK_EVERY_MS = 1000
const LOOKS = 60

/**
 * compactHeap once nothing is in flight (`busy()` false), looked at each second from a second after
 * the start: the collection holds the thread 100-170 ms, which a request being served would wait
 * for (the hostile-pages bench caught it). Given up after a minute of work: V8 collects a busy heap.
 */
export function compactWhenIdle(busy: () => boolean): void {
  let looks = 0
  const look = () => {
    if (!busy()) return compactHeap()
    if (++looks < LOOKS) setTimeout(look, LOOK_EVERY_MS).unref()
  }
  setTimeout(look, LOOK_EVERY_MS).unref()
}
