#!/usr/bin/env node
// The `trawl` command. A fresh clone needs no build step: at each start the TypeScript sources are
// bundled by esbuild (about 0.1 s, cached by content) and the bundle runs. Compiling every module
// on the fly instead (tsx) costs a loader thread, slower starts and about 100 MB more memory, in
// the server and in each reader thread. If the bundle cannot be built or written (a read-only
// install, say), or TRAWL_BUNDLE=false, the sources run through tsx as they do in the tests.
import { createHash } from 'node:crypto'
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

const root = new URL('../', import.meta.url)
const CACHE = new URL('node_modules/.cache/trawl/', root)
const KEEP_BUILDS = 4

async function buildBundle() {
  const { build } = await import('esbuild')
  const common = {
    absWorkingDir: fileURLToPath(root),
    bundle: true,
    platform: 'node',
    target: 'node20',
    packages: 'external',
    write: false,
    logLevel: 'silent',
    // src/paths.ts finds shipped files (workers, the dashboard, the guide) from its own URL.
    define: { 'import.meta.url': JSON.stringify(new URL('src/paths.ts', root).href) },
  }
  const [server, reader] = await Promise.all([
    build({ ...common, entryPoints: ['src/cli/cli.ts'], format: 'esm' }),
    // Piscina wants the task function as the module's export.
    build({
      ...common,
      format: 'cjs',
      stdin: {
        contents: "module.exports = require('./reader.worker.ts').readOnThread",
        resolveDir: fileURLToPath(new URL('src/reader/', root)),
        sourcefile: 'reader-thread.cjs',
      },
    }),
  ])
  mkdirSync(CACHE, { recursive: true })
  return { server: keep('trawl', 'mjs', server.outputFiles[0].text), readerWorker: keep('reader-thread', 'cjs', reader.outputFiles[0].text) }
}

/**
 * Writes a build under a name from its content (atomically: parallel starts may race). Older builds
 * are dropped but for the last few, which a server started earlier may still load a thread from.
 */
function keep(name, ext, text) {
  const file = new URL(`${name}.${createHash('sha256').update(text).digest('hex').slice(0, 16)}.${ext}`, CACHE)
  if (!existsSync(file)) {
    const tmp = `${fileURLToPath(file)}.${process.pid}.tmp`
    writeFileSync(tmp, text)
    renameSync(tmp, file)
    const builds = readdirSync(CACHE)
      .filter((other) => other.startsWith(`${name}.`) && other.endsWith(`.${ext}`))
      .map((other) => ({ path: fileURLToPath(new URL(other, CACHE)), at: statSync(new URL(other, CACHE), { throwIfNoEntry: false })?.mtimeMs ?? 0 }))
      .sort((a, b) => b.at - a.at)
    for (const old of builds.slice(KEEP_BUILDS)) rmSync(old.path, { force: true })
  }
  return file
}

let bundle = null
if (process.env.TRAWL_BUNDLE !== 'false') {
  try {
    bundle = await buildBundle()
  } catch (err) {
    process.stderr.write(`trawl: running the sources through tsx (the bundle was not built: ${err.message})\n`)
  }
}
if (bundle) {
  globalThis.trawlBundle = { readerWorker: bundle.readerWorker.href }
  await import(bundle.server.href)
} else {
  const { register } = await import('tsx/esm/api')
  register()
  await import('../src/cli/cli.ts')
}
