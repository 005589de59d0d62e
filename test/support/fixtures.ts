import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { gunzipSync } from 'node:zlib'

/** The repository's test data (fixtures/README.md): saved engine pages and evaluation corpora. */
export const FIXTURES = new URL('../../fixtures/', import.meta.url)

/**
 * One file under fixtures/, by its original name: large files are stored as `<name>.gz` and come
 * back decompressed here, so callers never care which form is on disk.
 */
export function readFixture(rel: string): Buffer {
  const plain = new URL(rel, FIXTURES)
  if (existsSync(plain)) return readFileSync(plain)
  return gunzipSync(readFileSync(new URL(`${rel}.gz`, FIXTURES)))
}

/** File names (without .gz, sorted: readFixture takes either) of one folder under fixtures/; `deep` walks sub-folders too. */
export function listFixtures(dir: string, deep = false): string[] {
  const base = dir.endsWith('/') ? dir : `${dir}/`
  const out: string[] = []
  for (const name of readdirSync(new URL(base, FIXTURES)).sort()) {
    if (statSync(new URL(base + name, FIXTURES)).isDirectory()) {
      if (deep) out.push(...listFixtures(base + name, true).map((f) => `${name}/${f}`))
    } else out.push(name.replace(/\.gz$/, ''))
  }
  return out
}
