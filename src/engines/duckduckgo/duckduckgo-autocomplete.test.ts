import { describe, expect, it } from 'vitest'
import { readFixture } from '../../../test/support/fixtures.ts'
import type { EngineFetch } from '../provider.types.ts'
import { detectDuckDuckGoAutocompleteBlock } from './duckduckgo.block.ts'
import { buildDuckDuckGoAutocompleteRequest, duckDuckGoAutocomplete, parseDuckDuckGoAutocomplete } from './duckduckgo-autocomplete.ts'

// Constructed to the endpoint's documented shape (fixtures/serp/SOURCES.md): there is no real capture.
const AC = readFixture('serp/duckduckgo/autocomplete/ac-rust.constructed.json').toString('utf8')
const AC_URL = 'https://duckduckgo.com/ac/?q=rust&kl=us-en'

describe('parseDuckDuckGoAutocomplete', () => {
  it('reads [{phrase}] in order, whitespace collapsed, without duplicates', () => {
    expect(parseDuckDuckGoAutocomplete(AC)).toEqual({
      results: ['rust', 'rust programming language', 'rust game', 'rust lang', 'rust-analyzer', 'rust & cargo', 'rust traits'].map((value) => ({ value })),
      parse_quality: 'ok',
    })
  })

  it('reads the type=list shape too', () => {
    expect(parseDuckDuckGoAutocomplete('["rust",["rust lang","rustup"]]').results).toEqual([{ value: 'rust lang' }, { value: 'rustup' }])
  })

  it('no suggestions is empty; an unknown shape or HTML is partial', () => {
    expect(parseDuckDuckGoAutocomplete('[]')).toEqual({ results: [], parse_quality: 'empty', saysNoResults: true })
    expect(parseDuckDuckGoAutocomplete('{"x":1}').parse_quality).toBe('partial')
    expect(parseDuckDuckGoAutocomplete('<html></html>').parse_quality).toBe('partial')
  })
})

describe('autocomplete request and blocks', () => {
  it('asks /ac/ with q and the kl region', () => {
    const { url, headers } = buildDuckDuckGoAutocompleteRequest({ endpoint: 'autocomplete', q: 'rust lang', country: 'de', language: 'de' })
    expect(url).toBe('https://duckduckgo.com/ac/?q=rust+lang&kl=de-de')
    expect(headers.Accept).toMatch(/^application\/json/)
    expect(headers['Accept-Language']).toBe('de,en;q=0.8')
  })

  it('an HTML body where JSON belongs is a block; JSON is not', () => {
    expect(detectDuckDuckGoAutocompleteBlock({ status: 200, url: AC_URL, body: AC })).toBeNull()
    expect(detectDuckDuckGoAutocompleteBlock({ status: 200, url: AC_URL, body: '[]' })).toBeNull()
    expect(detectDuckDuckGoAutocompleteBlock({ status: 200, url: AC_URL, body: '<html>x</html>' })?.reason).toMatch(/instead of JSON/)
    const anomaly = readFixture('serp/duckduckgo/blocked/ddgcli-anomaly-challenge-2026.html').toString('utf8')
    expect(detectDuckDuckGoAutocompleteBlock({ status: 200, url: AC_URL, body: anomaly })?.reason).toBe('DuckDuckGo challenge page (anomaly)')
  })

  it('run fetches once with the autocomplete block detector', async () => {
    const seen: string[] = []
    const fetch: EngineFetch = async (url, _h, detect) => {
      seen.push(url)
      expect(detect?.({ status: 200, url, body: '<html></html>' })).not.toBeNull()
      return { status: 200, url, body: AC }
    }
    const page = await duckDuckGoAutocomplete.run({ endpoint: 'autocomplete', q: 'rust' }, fetch)
    expect(seen).toEqual([AC_URL])
    expect(page.results[0]).toEqual({ value: 'rust' })
  })
})
