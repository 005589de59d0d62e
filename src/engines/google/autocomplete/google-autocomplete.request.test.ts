import { describe, expect, it } from 'vitest'
import type { VerticalRequest } from '../../engine.types.ts'
import { buildGoogleAutocompleteRequest } from './google-autocomplete.request.ts'

const base: VerticalRequest = { endpoint: 'autocomplete', q: 'café', country: 'fr', language: 'fr' }

describe('buildGoogleAutocompleteRequest', () => {
  it('builds the firefox-client request on www.google.com/complete/search', () => {
    const { url, headers } = buildGoogleAutocompleteRequest(base)
    expect(url).toBe('https://www.google.com/complete/search?client=firefox&q=caf%C3%A9&hl=fr&gl=fr&ie=UTF-8&oe=UTF-8')
    expect(headers['Accept-Language']).toBe('fr,en;q=0.8')
    expect(headers.Accept).toMatch(/^application\/json/)
  })

  it('puts q, language and country in the URL', () => {
    const p = new URL(buildGoogleAutocompleteRequest({ ...base, q: 'how to "tie" a tie & more', language: 'pt-BR', country: 'br' }).url).searchParams
    expect(p.get('q')).toBe('how to "tie" a tie & more')
    expect(p.get('hl')).toBe('pt-BR')
    expect(p.get('gl')).toBe('br')
    expect(p.get('client')).toBe('firefox')
  })

  it('defaults to en / us', () => {
    const p = new URL(buildGoogleAutocompleteRequest({ endpoint: 'autocomplete', q: 'x' }).url).searchParams
    expect(p.get('hl')).toBe('en')
    expect(p.get('gl')).toBe('us')
  })
})
