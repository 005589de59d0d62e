import { createRequire } from 'node:module'

/**
 * Files that ship beside the sources: thread entries, the dashboard app, the guide, package.json.
 * Running the sources (tsx, vitest) they are found from this file. bin/trawl.mjs runs a bundle of
 * the sources instead, built with `import.meta.url` defined as this file's URL, so the same
 * relative paths hold there too. Nothing else under src/ reads `import.meta.url`.
 */
const SRC_ROOT = new URL('./', import.meta.url)

/** A file under src/, from a path relative to src/ ('store/wal-checkpoint.worker.cjs'). */
export const srcFile = (relative: string): URL => new URL(relative, SRC_ROOT)

/**
 * A package required at its first use rather than at start, so that a server that never needs it
 * does without its memory (docs/performance.md). A static import would not do: the bundle hoists a
 * package's static imports to its start.
 */
export function requireOnFirstUse<T>(name: string): () => T {
  let loaded: T | undefined
  return () => {
    loaded ??= createRequire(SRC_ROOT)(name) as T
    return loaded
  }
}

/** What bin/trawl.mjs sets when it runs the bundle: the threads' bundled entries. */
interface BundleInfo {
  readerWorker: string
  tokenThread: string
}

const bundled = () => (globalThis as { trawlBundle?: BundleInfo }).trawlBundle

/**
 * The reader threads' entry: the bundled worker when the server runs from the bundle; otherwise
 * reader.worker.cjs, which loads the TypeScript worker through tsx.
 */
export function readerWorkerFile(): URL {
  const bundle = bundled()
  return bundle ? new URL(bundle.readerWorker) : srcFile('reader/reader.worker.cjs')
}

/** The token thread's entry (text/tokens.ts), found as the reader threads' is. */
export function tokenThreadFile(): URL {
  const bundle = bundled()
  return bundle ? new URL(bundle.tokenThread) : srcFile('text/tokens.thread.cjs')
}
