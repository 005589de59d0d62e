import { describe, expect, it } from 'vitest'
import { engine as engineParam } from '../params/search.params.ts'
import { builtInNamesOf, engineNamesOf, namesText, primaryOf } from './engine-names.ts'
import type { Provider } from './provider.types.ts'
import {
  BUILT_IN_ENGINES,
  CAPABILITY_TABLE,
  createEngines,
  describeEngines,
  ENGINE_NAMES,
  type EngineOptions,
  MAX_ENGINE_LIST,
  PRIMARY_ENGINE,
  type ProviderRow,
} from './registry.ts'
import type { UpstreamClient } from './upstream/upstream-client.ts'

const upstream = { browserRefusal: () => null } as unknown as UpstreamClient
const bare: EngineOptions = { reviewsTokenSecret: 'x'.repeat(32), braveApiKey: null, cooldownMs: 1000, deadlineMs: 1000 }
const configured: EngineOptions = { ...bare, searxngUrl: 'http://127.0.0.1:9/', serperApiKey: 'key' }

const rows = Object.entries<ProviderRow>(CAPABILITY_TABLE)
const fakeProvider = (name: string) => ({ ...(rows[0]?.[1].provider(bare, upstream) as Provider), name }) as Provider

describe('the capability table is the one list of providers', () => {
  it('names every row once: the built-in providers in table order, then the operator-configured ones', () => {
    expect([...ENGINE_NAMES].sort()).toEqual(Object.keys(CAPABILITY_TABLE).sort())
    expect(BUILT_IN_ENGINES).toEqual(rows.filter(([, r]) => !r.configuredOnly).map(([n]) => n))
    expect(ENGINE_NAMES).toEqual([...BUILT_IN_ENGINES, ...rows.filter(([, r]) => r.configuredOnly).map(([n]) => n)])
    expect(PRIMARY_ENGINE).toBe(Object.keys(CAPABILITY_TABLE)[0])
    expect(MAX_ENGINE_LIST).toBe(BUILT_IN_ENGINES.length)
  })

  it("builds each row's provider under the row's name; operator-configured rows only when configured", () => {
    for (const [name, row] of rows) {
      expect(row.provider(configured, upstream)?.name, name).toBe(name)
      if (row.configuredOnly) expect(row.provider(bare, upstream), name).toBeNull()
      else expect(row.provider(bare, upstream), name).not.toBeNull()
    }
    expect(createEngines(upstream, bare).names().sort()).toEqual([...BUILT_IN_ENGINES].sort())
    expect(createEngines(upstream, configured).names()).toEqual(Object.keys(CAPABILITY_TABLE))
  })

  it('follows a new row: names, the list maximum and descriptions need nothing else', () => {
    const withNew = {
      ...CAPABILITY_TABLE,
      newengine: { provider: () => fakeProvider('newengine'), auto: true, consensus: false },
      ownservice: { provider: () => null, auto: true, consensus: false, configuredOnly: true },
    } satisfies Record<string, ProviderRow>
    expect(engineNamesOf(withNew)).toEqual([...BUILT_IN_ENGINES, 'newengine', ...ENGINE_NAMES.slice(BUILT_IN_ENGINES.length), 'ownservice'])
    expect(builtInNamesOf(withNew)).toHaveLength(MAX_ENGINE_LIST + 1)
    expect(primaryOf(withNew)).toBe(PRIMARY_ENGINE)
    expect(namesText(builtInNamesOf(withNew))).toMatch(/, [a-z]+ or newengine$/)
    expect(namesText(builtInNamesOf(withNew))).not.toContain('ownservice')
  })

  it('words descriptions from the built-in providers, the primary marked as the default', () => {
    const [primary, ...rest] = BUILT_IN_ENGINES
    expect(describeEngines()).toBe(`${primary} (default), ${rest.slice(0, -1).join(', ')} or ${rest.at(-1)}`)
    expect(describeEngines({ primary: 'by default', last: ',' })).toBe(`${primary} by default, ${rest.join(', ')}`)
    expect(describeEngines({ primary: null, last: ',' })).toBe(BUILT_IN_ENGINES.join(', '))
    expect(namesText(['a'])).toBe('a (default)')
    expect(namesText(['a', 'b'], { primary: null })).toBe('a or b')
  })

  it('refuses a table whose first row is not a built-in provider', () => {
    expect(() => primaryOf({ own: { configuredOnly: true }, other: {} })).toThrow(/built-in/)
  })

  it('lets an engine array hold each built-in provider once, and no more', () => {
    expect(engineParam.safeParse([...BUILT_IN_ENGINES]).success).toBe(true)
    expect(engineParam.safeParse([...BUILT_IN_ENGINES, PRIMARY_ENGINE]).success).toBe(false)
  })
})
