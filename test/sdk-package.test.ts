import { execFile } from 'node:child_process'
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { delimiter, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'

/**
 * @trawl/sdk as someone outside the repository gets it: `npm pack` of a copy of packages/sdk (its
 * prepack builds dist/), the tarball installed into an empty project with `npm install --offline`
 * (the package has no dependencies, so no registry is asked), then imported from plain Node (ESM
 * and require), and type-checked from a TypeScript consumer against the shipped declarations.
 */

const run = promisify(execFile)
const ROOT = fileURLToPath(new URL('..', import.meta.url))
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm'
// npm runs the package's scripts with the repository's node_modules/.bin (tsc) on PATH, as it does
// in a checkout; the copy lives in a temp dir, so it is added here.
const env = { ...process.env, PATH: `${join(ROOT, 'node_modules/.bin')}${delimiter}${process.env.PATH ?? ''}` }

let dir: string
let consumer: string
let packed: { filename: string; files: { path: string }[] }

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'trawl-sdk-pack-'))
  const copy = join(dir, 'sdk')
  cpSync(join(ROOT, 'packages/sdk'), copy, { recursive: true, filter: (src) => !/[\\/](dist|node_modules)$/.test(src) })
  const { stdout } = await run(npm, ['pack', '--json', '--pack-destination', dir], { cwd: copy, env })
  // npm prints the prepack script's output before the JSON.
  packed = JSON.parse(stdout.slice(stdout.indexOf('[')))[0]
  consumer = join(dir, 'consumer')
  mkdirSync(consumer)
  writeFileSync(join(consumer, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }))
  await run(npm, ['install', '--offline', '--no-audit', '--no-fund', join(dir, packed.filename)], { cwd: consumer, env })
}, 120_000)
afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true })
})

describe('@trawl/sdk from its npm tarball', () => {
  test('the tarball holds the built JavaScript, its declarations and the README; no build files', () => {
    const files = packed.files.map((f) => f.path).sort()
    expect(files).toEqual(expect.arrayContaining(['README.md', 'package.json', 'dist/index.js', 'dist/index.d.ts', 'dist/client.js', 'dist/types.gen.d.ts']))
    expect(files.filter((f) => f.startsWith('scripts/') || f.startsWith('tsconfig'))).toEqual([])
  })

  test('plain Node imports it (ESM and require) and it works with an injected fetch', async () => {
    const script = `
      import { Trawl, UnauthorizedError, SDK_VERSION } from '@trawl/sdk'
      import { createRequire } from 'node:module'
      const cjs = createRequire(import.meta.url)('@trawl/sdk')
      const fetch = async () => new Response(JSON.stringify({ error: { code: 'unauthorized', message: 'no such key', request_id: 'req_1' } }), { status: 401, headers: { 'content-type': 'application/json' } })
      const error = await new Trawl({ baseUrl: 'http://trawl.invalid', apiKey: 'k', fetch }).getAccount().catch((e) => e)
      console.log(JSON.stringify({ version: SDK_VERSION, typed: error instanceof UnauthorizedError, code: error.code, sameClass: cjs.Trawl === Trawl }))
    `
    writeFileSync(join(consumer, 'use.mjs'), script)
    const { stdout } = await run(process.execPath, ['use.mjs'], { cwd: consumer })
    // SDK_VERSION is the version in the package's package.json (bumped together when publishing).
    const { version } = JSON.parse(readFileSync(join(ROOT, 'packages/sdk/package.json'), 'utf8'))
    expect(JSON.parse(stdout)).toEqual({ version, typed: true, code: 'unauthorized', sameClass: true })
  })

  test('a TypeScript consumer type-checks against the shipped .d.ts (module nodenext, no access to the sources)', async () => {
    writeFileSync(
      join(consumer, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: { target: 'ES2022', module: 'nodenext', moduleResolution: 'nodenext', strict: true, noEmit: true, lib: ['ES2022', 'DOM'], types: [] },
        files: ['use.ts'],
      }),
    )
    writeFileSync(
      join(consumer, 'use.ts'),
      `import { Trawl, type SearchResponse } from '@trawl/sdk'
const trawl = new Trawl({ baseUrl: 'http://trawl.invalid', apiKey: 'k' })
export async function first(): Promise<string | undefined> {
  const answer: SearchResponse = await trawl.search({ q: 'espresso', num: 10 })
  return answer.results[0]?.link
}
// @ts-expect-error q is a string: the declarations are real types, not any
trawl.search({ q: 1 })
`,
    )
    const result = await run(join(ROOT, 'node_modules/.bin/tsc'), ['-p', consumer]).catch((e: { stdout: string }) => e)
    expect(result.stdout).toBe('')
  })
})
