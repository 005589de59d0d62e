import { readdirSync, readFileSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { describe, expect, test } from 'vitest'

/**
 * The floors of docs/ARCHITECTURE.md, held: nothing below features/ imports a feature, nothing but
 * the composition files imports them, and core features import each other only where the page
 * says. Imports are read as text (type imports count: they tie files together all the same).
 */

const SRC = resolve(import.meta.dirname, '../src')
const COMPOSITION = new Set(['app.ts', 'main.ts', 'services.ts', 'cluster.ts'])
const ADAPTERS = new Set(['compat', 'mcp', 'dashboard', 'docs', 'playground', 'batches', 'monitors', 'health'])
/** The core features' imports of each other that ARCHITECTURE.md lists. */
const ALLOWED_CROSS = new Set([
  'features/accounts/accounts.service.ts -> features/dashboard/dashboard.store.ts',
  'features/context/context.routes.ts -> features/search/search.service.ts',
  'features/context/context.service.ts -> features/reading/extract.service.ts',
  'features/context/context.service.ts -> features/search/search.service.ts',
])

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name)
    if (e.isDirectory()) return sources(path)
    return /\.(ts|mts|js|mjs)$/.test(e.name) && !/\.test\.|\.fixture\./.test(e.name) ? [path] : []
  })
}

const IMPORT = /(?:import|export)\s[^'"]*?from\s+['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g

const arrows = sources(SRC).flatMap((file) => {
  const from = relative(SRC, file)
  return [...readFileSync(file, 'utf8').matchAll(IMPORT)]
    .map((m) => m[1] ?? m[2] ?? '')
    .filter((spec) => spec.startsWith('.'))
    .map((spec) => ({ from, to: relative(SRC, resolve(dirname(file), spec)) }))
})

const floorOf = (path: string) => (path.startsWith('cli/') || COMPOSITION.has(path) ? 'composition' : path.startsWith('features/') ? 'features' : 'lower')

describe('the floors (docs/ARCHITECTURE.md)', () => {
  test('nothing below features/ imports a feature', () => {
    expect(arrows.length).toBeGreaterThan(1000) // the imports were read
    expect(arrows.filter((a) => floorOf(a.from) === 'lower' && a.to.startsWith('features/')).map((a) => `${a.from} -> ${a.to}`)).toEqual([])
  })

  test('only the composition files and cli/ import the composition files', () => {
    expect(arrows.filter((a) => floorOf(a.from) !== 'composition' && COMPOSITION.has(a.to)).map((a) => `${a.from} -> ${a.to}`)).toEqual([])
  })

  test('core features import each other only where ARCHITECTURE.md says', () => {
    const cross = arrows
      .filter((a) => a.from.startsWith('features/') && a.to.startsWith('features/'))
      .filter((a) => a.from.split('/')[1] !== a.to.split('/')[1] && !ADAPTERS.has(a.from.split('/')[1] ?? ''))
      .map((a) => `${a.from} -> ${a.to}`)
    expect(cross.filter((c) => !ALLOWED_CROSS.has(c))).toEqual([])
  })
})
