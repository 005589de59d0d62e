import { describe, expect, it } from 'vitest'
import { mergeByUrl } from './consensus.merge.ts'
import type { OrganicResult } from './engine.types.ts'

const r = (position: number, link: string, extra: Partial<OrganicResult> = {}): OrganicResult => ({
  position,
  title: link,
  link,
  domain: new URL(link).hostname,
  ...extra,
})

describe('mergeByUrl', () => {
  it('one entry per canonical URL, ranked by agreement then rank, with every source', () => {
    const merged = mergeByUrl([
      { engine: 'google', results: [r(1, 'https://a.example/'), r(2, 'https://b.example/x'), r(3, 'https://c.example/')] },
      { engine: 'bing', results: [r(1, 'https://www.b.example/x/?utm_source=bing'), r(2, 'http://c.example')] },
      { engine: 'brave', results: [r(1, 'https://d.example/'), r(2, 'https://c.example/')] },
    ])
    expect(merged.map((m) => m.link)).toEqual(['https://c.example/', 'https://b.example/x', 'https://a.example/', 'https://d.example/'])
    expect(merged.map((m) => m.position)).toEqual([1, 2, 3, 4])
    expect(merged[0]?.sources).toEqual([
      { engine: 'google', position: 3 },
      { engine: 'bing', position: 2 },
      { engine: 'brave', position: 2 },
    ])
    expect(merged[2]?.sources).toEqual([{ engine: 'google', position: 1 }])
  })

  it('fills a missing snippet or date from another provider and counts a provider once per page', () => {
    const merged = mergeByUrl([
      { engine: 'mojeek', results: [r(1, 'https://a.example/'), r(2, 'https://a.example/')] },
      { engine: 'bing', results: [r(1, 'https://a.example/', { snippet: 'from bing', date: '2 days ago' })] },
    ])
    expect(merged).toHaveLength(1)
    expect(merged[0]).toMatchObject({ snippet: 'from bing', date: '2 days ago' })
    expect(merged[0]?.sources).toHaveLength(2)
  })
})
