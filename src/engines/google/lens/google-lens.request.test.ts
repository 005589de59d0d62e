import { describe, expect, it } from 'vitest'
import type { VerticalRequest } from '../../engine.types.ts'
import { buildGoogleLensRequest, LENS_MAX_URL_LENGTH, lensLocale } from './google-lens.request.ts'

const base: VerticalRequest = { endpoint: 'lens', url: 'https://images.example.org/cats/tabby 1.jpg?w=800&h=600', country: 'us', language: 'en' }

describe('buildGoogleLensRequest', () => {
  it('asks lens.google.com/uploadbyurl with the image URL escaped and a locale', () => {
    const { url } = buildGoogleLensRequest(base)
    expect(url).toBe('https://lens.google.com/uploadbyurl?url=https%3A%2F%2Fimages.example.org%2Fcats%2Ftabby%201.jpg%3Fw%3D800%26h%3D600&hl=en-US&gl=us')
    expect(new URL(url).searchParams.get('url')).toBe('https://images.example.org/cats/tabby 1.jpg?w=800&h=600')
  })

  it('combines language and country into the Lens locale', () => {
    const u = new URL(buildGoogleLensRequest({ ...base, language: 'de', country: 'at' }).url)
    expect(u.searchParams.get('hl')).toBe('de-AT')
    expect(u.searchParams.get('gl')).toBe('at')
    expect(lensLocale('pt-BR', 'pt')).toBe('pt-BR')
    expect(lensLocale('zh-tw', 'hk')).toBe('zh-TW')
    expect(lensLocale('fr', 'CA')).toBe('fr-CA')
  })

  it('sends the desktop Chrome identity with the consent cookie', () => {
    const { headers } = buildGoogleLensRequest({ ...base, language: 'ja', country: 'jp' })
    expect(headers['User-Agent']).toMatch(/Chrome\/\d+/)
    expect(headers['Accept-Language']).toBe('ja,en;q=0.8')
    expect(headers.Cookie).toContain('CONSENT=YES+')
  })

  it('defaults to en-US and documents the URL length Lens accepts', () => {
    expect(buildGoogleLensRequest({ endpoint: 'lens', url: 'https://x.example/a.png' }).url).toBe(
      'https://lens.google.com/uploadbyurl?url=https%3A%2F%2Fx.example%2Fa.png&hl=en-US&gl=us',
    )
    expect(LENS_MAX_URL_LENGTH).toBe(2000)
  })
})
