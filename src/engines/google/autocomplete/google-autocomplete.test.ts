import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import type { EngineFetch } from '../../provider.types.ts'
import type { BlockDetector } from '../../upstream/upstream.types.ts'
import { googleAutocomplete } from './google-autocomplete.ts'

const body = readFileSync(new URL('../../../../test/fixtures/google/autocomplete/autocomplete-firefox-cafe-fr.constructed.json', import.meta.url), 'utf8')

describe('googleAutocomplete.run', () => {
  it('fetches the suggest URL with the autocomplete detector and returns the suggestions', async () => {
    const calls: { url: string; detectBlock?: BlockDetector }[] = []
    const fetch: EngineFetch = async (url, _headers, detectBlock) => {
      calls.push({ url, detectBlock })
      return { status: 200, url, body }
    }
    const answer = await googleAutocomplete.run({ endpoint: 'autocomplete', q: 'café', country: 'fr', language: 'fr' }, fetch)
    expect(calls.map((c) => c.url)).toEqual(['https://www.google.com/complete/search?client=firefox&q=caf%C3%A9&hl=fr&gl=fr&ie=UTF-8&oe=UTF-8'])
    expect(answer.parse_quality).toBe('ok')
    expect(answer.results.slice(0, 3)).toEqual([{ value: 'café de flore' }, { value: 'café joyeux' }, { value: 'café racer' }])
    expect(calls[0]!.detectBlock?.({ status: 200, url: calls[0]!.url, body: '<html><body>blocked</body></html>' })).not.toBeNull()
  })
})
