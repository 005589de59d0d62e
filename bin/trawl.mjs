#!/usr/bin/env node
// The `trawl` command. A fresh clone needs no build step: at each start the TypeScript sources are
// bundled by esbuild (about 0.1 s, cached by content) and the bundle runs; a start whose sources are
// those of the last build runs that build without starting esbuild. Compiling every module
// on the fly instead (tsx) costs a loader thread, slower starts and about 100 MB more memory, in
// the server and in each reader thread. If the bundle cannot be built or written (a read-only
// install, say), or TRAWL_BUNDLE=false, the sources run through tsx as they do in the tests.
import './node-version.mjs'
import { createHash } from 'node:crypto'
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { fileURLToPath } from 'node:url'

const root = new URL('../', import.meta.url)
const CACHE = new URL('node_modules/.cache/trawl/', root)
/** The last build: its files, the source files it was built from, and their key (inputsKey). */
const MANIFEST = new URL('last-build.json', CACHE)
const KEEP_BUILDS = 4
/**
 * The worker threads' entries, each built as a bundle of its own and given to esbuild as stdin
 * (piscina wants the task function as the module's export): the name bin/trawl.mjs hands
 * src/paths.ts, the folder it resolves from, and the module and export it runs.
 */
const THREADS = [
  { key: 'readerWorker', name: 'reader-thread', dir: 'src/reader/', module: './reader.worker.ts', run: 'readOnThread' },
  { key: 'tokenThread', name: 'token-thread', dir: 'src/text/', module: './tokens.thread.ts', run: 'tokensOnThread' },
]
/** How esbuild's metafile names a thread's entry: its text is in this file. */
const stdinEntry = (thread) => `${thread.dir}${thread.name}.cjs`

/**
 * What a build depends on: this file (the build options), esbuild's version, the TypeScript and
 * package settings, and the content of every source file the build read (esbuild's metafile).
 * A file added and imported changes the importing file, so the list of the last build suffices.
 */
function inputsKey(inputs) {
  // The root too: the bundle holds its absolute path (src/paths.ts's URL).
  const hash = createHash('sha256').update(`${root.href}\0`)
  const esbuildPackage = createRequire(import.meta.url).resolve('esbuild/package.json')
  for (const file of [import.meta.url, esbuildPackage, 'tsconfig.json', 'package.json', ...inputs]) {
    hash.update(`${file}\0`)
    hash.update(readFileSync(file === esbuildPackage ? file : new URL(file, root)))
    hash.update('\0')
  }
  return hash.digest('hex')
}

/** The last build when its sources are unchanged: no esbuild process (about 60 MB) is started. */
function cachedBundle() {
  try {
    const last = JSON.parse(readFileSync(MANIFEST, 'utf8'))
    const files = Object.fromEntries(['server', ...THREADS.map((thread) => thread.key)].map((key) => [key, new URL(last[key], CACHE)]))
    if (Object.values(files).every(existsSync) && last.key === inputsKey(last.inputs)) return files
  } catch {
    // No manifest yet, or a source file of the last build is gone: build.
  }
  return null
}

async function buildBundle() {
  const startedAt = Date.now()
  const { build, stop } = await import('esbuild')
  const common = {
    absWorkingDir: fileURLToPath(root),
    bundle: true,
    platform: 'node',
    target: 'node20',
    packages: 'external',
    write: false,
    logLevel: 'silent',
    metafile: true,
    // src/paths.ts finds shipped files (workers, the dashboard, the guide) from its own URL.
    define: { 'import.meta.url': JSON.stringify(new URL('src/paths.ts', root).href) },
  }
  const builds = Promise.all([
    build({ ...common, entryPoints: ['src/cli/cli.ts'], format: 'esm' }),
    ...THREADS.map((thread) =>
      build({
        ...common,
        format: 'cjs',
        stdin: {
          contents: `module.exports = require('${thread.module}').${thread.run}`,
          resolveDir: fileURLToPath(new URL(thread.dir, root)),
          sourcefile: `${thread.name}.cjs`,
        },
      }),
    ),
  ])
  // esbuild's service process would otherwise live as long as the server.
  const [server, ...threads] = await builds.finally(() => stop())
  mkdirSync(CACHE, { recursive: true })
  const bundle = { server: keep('trawl', 'mjs', asciiOnly(server.outputFiles[0].text)) }
  THREADS.forEach((thread, i) => {
    bundle[thread.key] = keep(thread.name, 'cjs', asciiOnly(threads[i].outputFiles[0].text))
  })
  remember(bundle, [server, ...threads], startedAt)
  return bundle
}

/**
 * esbuild escapes non-ASCII characters in strings and names but leaves them in regular expression
 * literals (and comments); one such character makes V8 hold the whole module source as two bytes a
 * character, 1.4 MB more for the server's bundle. `\\uXXXX` means the same character in a regular
 * expression, with or without the u flag (a pair of escaped surrogates is one code point with it);
 * a character escaped with a backslash already is an identity escape, whose backslash goes.
 */
function asciiOnly(text) {
  return text.replace(/(\\*)([^\x00-\x7f])/gu, (_, slashes, char) => {
    let escaped = ''
    for (let i = 0; i < char.length; i++) escaped += `\\u${char.charCodeAt(i).toString(16).padStart(4, '0')}`
    return (slashes.length % 2 === 1 ? slashes.slice(1) : slashes) + escaped
  })
}

/** Writes the manifest, unless a source file changed while it was built (the next start builds again). */
function remember(bundle, results, startedAt) {
  // The threads' entries are given as stdin: their text is in this file.
  const stdin = new Set(THREADS.map(stdinEntry))
  const inputs = [...new Set(results.flatMap((result) => Object.keys(result.metafile.inputs)))].filter((file) => !stdin.has(file)).sort()
  if (inputs.some((file) => statSync(new URL(file, root)).mtimeMs >= startedAt)) return
  const files = Object.fromEntries(Object.entries(bundle).map(([key, url]) => [key, fileName(url)]))
  const manifest = { key: inputsKey(inputs), ...files, inputs }
  const tmp = `${fileURLToPath(MANIFEST)}.${process.pid}.tmp`
  writeFileSync(tmp, JSON.stringify(manifest))
  renameSync(tmp, MANIFEST)
}

const fileName = (url) => url.pathname.slice(url.pathname.lastIndexOf('/') + 1)

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
    bundle = cachedBundle() ?? (await buildBundle())
  } catch (err) {
    process.stderr.write(`trawl: running the sources through tsx (the bundle was not built: ${err.message})\n`)
  }
}
if (bundle) {
  globalThis.trawlBundle = Object.fromEntries(THREADS.map((thread) => [thread.key, bundle[thread.key].href]))
  await import(bundle.server.href)
} else {
  const { register } = await import('tsx/esm/api')
  register()
  await import('../src/cli/cli.ts')
}
