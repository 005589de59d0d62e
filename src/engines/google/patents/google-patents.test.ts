import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import type { EngineFetch } from '../../provider.types.ts'
import type { BlockDetector } from '../../upstream/upstream.types.ts'
import { googlePatents } from './google-patents.ts'

const body = readFileSync(new URL('../../../../test/fixtures/google/patents/patents-solar-panel-cleaning-robot.constructed.json', import.meta.url), 'utf8')

describe('googlePatents.run', () => {
  it('fetches the xhr/query URL with the Patents detector and parses the answer', async () => {
    const calls: { url: string; detectBlock?: BlockDetector }[] = []
    const fetch: EngineFetch = async (url, _headers, detectBlock) => {
      calls.push({ url, detectBlock })
      return { status: 200, url, body }
    }
    const answer = await googlePatents.run({ endpoint: 'patents', q: 'solar panel cleaning robot', num: 10, page: 2 }, fetch)
    expect(calls).toHaveLength(1)
    expect(calls[0]!.url).toBe('https://patents.google.com/xhr/query?url=q%3Dsolar%2520panel%2520cleaning%2520robot%26num%3D10%26page%3D1&exp=')
    expect(answer.parse_quality).toBe('ok')
    expect(answer.total_results).toBe(28613)
    expect(answer.results[0]).toMatchObject({ position: 11, publication_number: 'US10594250B2' })
    expect(calls[0]!.detectBlock?.({ status: 200, url: calls[0]!.url, body: '<html><body>sorry</body></html>' })).not.toBeNull()
  })

  it('returns no more than num results', async () => {
    // An answer longer than asked for (a second cluster here) is cut to num.
    const data = JSON.parse(body)
    data.results.cluster.push({ result: [{ id: 'patent/US1A/en', patent: { title: 'Extra', publication_number: 'US1A' } }] })
    const fetch: EngineFetch = async (url) => ({ status: 200, url, body: JSON.stringify(data) })
    const answer = await googlePatents.run({ endpoint: 'patents', q: 'x', num: 10, page: 1 }, fetch)
    expect(answer.results).toHaveLength(10)
    expect(answer.results.at(-1)?.publication_number).toBe('US20210362184A1')
  })
})
