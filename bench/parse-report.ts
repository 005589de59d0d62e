/**
 * Parse report: every saved engine response we parse, with the number of items each parser got out
 * of it and the share of items that carry each item field. A field at 0% on a real capture is either
 * absent from that layout or a parser gap; this table is how we tell which.
 *
 *   npm run bench:parse
 */
import { readdirSync, readFileSync } from 'node:fs'
import { listFixtures, readFixture } from '../test/support/fixtures.ts'
import { PARSE_CASES, type ParseCase } from './parse-report.cases.ts'

const LOCAL = new URL('../test/fixtures/', import.meta.url)

function read(c: ParseCase): string {
  return c.local ? readFileSync(new URL(c.file, LOCAL), 'utf8') : readFixture(c.file).toString('utf8')
}

/** A value counts as filled when it carries something: not null, not '', not [] and not {}. */
function filled(v: unknown): boolean {
  if (v === undefined || v === null || v === '') return false
  if (Array.isArray(v)) return v.length > 0
  if (typeof v === 'object') return Object.keys(v).length > 0
  return true
}

const pct = (n: number, of: number) => (of === 0 ? '-' : `${Math.round((100 * n) / of)}%`)

function expand(c: ParseCase): ParseCase[] {
  if (!c.file.endsWith('/')) return [c]
  const names = c.local ? readdirSync(new URL(c.file, LOCAL)) : listFixtures(c.file)
  return names
    .filter((f) => /\.(html?|json|xml|txt)$/.test(f))
    .sort()
    .map((f) => ({ ...c, file: `${c.file}${f}` }))
}

let section = ''
const totals = new Map<string, { items: number; real: number; fill: number[]; fields: string[]; maxMs: number; totalMs: number; pages: number }>()
for (const c of PARSE_CASES.flatMap(expand)) {
  const name = `${c.provider ?? 'google'} ${c.vertical}`
  if (name !== section) {
    section = name
    console.log(`\n## ${section}\n`)
    console.log(`| fixture | kind | quality | items | ms | ${c.fields.join(' | ')} |`)
    console.log(`|---|---|---|---|---|${c.fields.map(() => '---').join('|')}|`)
  }
  const started = performance.now()
  const page = c.parse(read(c))
  const ms = performance.now() - started
  const items = page.results as Record<string, unknown>[]
  const fill = c.fields.map((f) => items.filter((it) => filled(it[f])).length)
  const total = totals.get(name) ?? { items: 0, real: 0, fill: c.fields.map(() => 0), fields: c.fields, maxMs: 0, totalMs: 0, pages: 0 }
  total.items += items.length
  if (!c.local && !c.file.includes('.constructed.')) total.real += items.length
  total.maxMs = Math.max(total.maxMs, ms)
  total.totalMs += ms
  total.pages++
  fill.forEach((n, i) => {
    total.fill[i] = (total.fill[i] ?? 0) + n
  })
  totals.set(name, total)
  const kind = c.local || c.file.includes('.constructed.') ? 'constructed' : 'real'
  console.log(`| ${c.file} | ${kind} | ${page.parse_quality} | ${items.length} | ${ms.toFixed(1)} | ${fill.map((n) => pct(n, items.length)).join(' | ')} |`)
}

console.log('\n## Totals per provider and vertical\n')
for (const [name, t] of totals) {
  console.log(
    `- ${name}: ${t.pages} pages, ${t.items} items (${t.real} from real captures), parse mean ${(t.totalMs / t.pages).toFixed(1)} ms, slowest ${t.maxMs.toFixed(0)} ms; ${t.fields.map((f, i) => `${f} ${pct(t.fill[i] ?? 0, t.items)}`).join(', ')}`,
  )
}
