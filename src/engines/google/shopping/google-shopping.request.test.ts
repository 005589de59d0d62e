import { describe, expect, it } from 'vitest'
import type { VerticalRequest } from '../../engine.types.ts'
import { decodeUule } from '../google-uule.encode.ts'
import { buildGoogleShoppingRequest, SHOPPING_PAGE_SIZE } from './google-shopping.request.ts'

const base: VerticalRequest = { endpoint: 'shopping', q: 'running shoes', country: 'us', language: 'en', page: 1 }

describe('buildGoogleShoppingRequest', () => {
  it('asks the Shopping tab of www.google.com with language and country', () => {
    const { url } = buildGoogleShoppingRequest(base)
    expect(url).toBe('https://www.google.com/search?q=running%20shoes&tbm=shop&hl=en&gl=us&ie=UTF-8&oe=UTF-8')
  })

  it('pages in steps of the 60-product grid and sends no num', () => {
    expect(SHOPPING_PAGE_SIZE).toBe(60)
    const u = new URL(buildGoogleShoppingRequest({ ...base, page: 3 }).url)
    expect(u.searchParams.get('start')).toBe('120')
    expect(u.searchParams.has('num')).toBe(false)
    expect(new URL(buildGoogleShoppingRequest(base).url).searchParams.has('start')).toBe(false)
  })

  it('carries a regional language and country as given', () => {
    const u = new URL(buildGoogleShoppingRequest({ ...base, q: 'kaffeemaschine', language: 'de-AT', country: 'at' }).url)
    expect(u.searchParams.get('hl')).toBe('de-AT')
    expect(u.searchParams.get('gl')).toBe('at')
    expect(u.searchParams.get('q')).toBe('kaffeemaschine')
  })

  it('encodes location into uule with the literal "w+", and prefers an explicit uule', () => {
    const fromLocation = buildGoogleShoppingRequest({ ...base, location: 'Austin, Texas, United States' }).url
    const uule = /[?&]uule=([^&]+)/.exec(fromLocation)?.[1] ?? ''
    expect(uule.startsWith('w+CAIQICI')).toBe(true)
    expect(decodeUule(uule)).toBe('Austin, Texas, United States')

    const explicit = buildGoogleShoppingRequest({ ...base, uule: 'w+CAIQICINVW5pdGVkIFN0YXRlcw', location: 'Paris, France' }).url
    expect(explicit).toContain('&uule=w+CAIQICINVW5pdGVkIFN0YXRlcw&')
  })

  it('sends the desktop Chrome identity with the consent cookie and the language', () => {
    const { headers } = buildGoogleShoppingRequest({ ...base, language: 'fr' })
    expect(headers['User-Agent']).toMatch(/Chrome\/\d+.*Safari/)
    expect(headers['User-Agent']).not.toMatch(/Mobile/)
    expect(headers['Accept-Language']).toBe('fr,en;q=0.8')
    expect(headers.Cookie).toContain('SOCS=')
  })

  it('fills missing defaults: English, US, page 1', () => {
    const { url } = buildGoogleShoppingRequest({ endpoint: 'shopping', q: 'kettle' })
    expect(url).toBe('https://www.google.com/search?q=kettle&tbm=shop&hl=en&gl=us&ie=UTF-8&oe=UTF-8')
  })
})
