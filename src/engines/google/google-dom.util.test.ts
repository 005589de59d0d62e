import * as cheerio from 'cheerio'
import { describe, expect, it } from 'vitest'
import { domainOf } from '../parse/text.ts'
import { parseCount, resultUrl, splitLeadingDate, textOf, unwrapGoogleUrl } from './google-dom.util.ts'

describe('resultUrl', () => {
  it('unwraps /url redirects and decodes the target', () => {
    expect(resultUrl('/url?q=https://www.google.com/imghp%3Fhl%3DEN&sa=U&ved=2ahUKE&usg=AOv')).toBe('https://www.google.com/imghp?hl=EN')
    expect(resultUrl('/url?esrc=s&q=&rct=j&sa=U&url=https://example.com/a%20b&ved=x')).toBe('https://example.com/a%20b')
    expect(resultUrl('https://www.google.com/url?q=https://support.google.com/websearch%3Fp%3Dx&sa=U')).toBe('https://support.google.com/websearch?p=x')
  })

  it('drops Google UI links but keeps absolute links to Google pages', () => {
    expect(resultUrl('/search?q=coffee&tbm=isch')).toBeNull()
    expect(resultUrl('https://www.google.com/search?q=related:example.com')).toBeNull()
    expect(resultUrl('https://webcache.googleusercontent.com/search?q=cache:abc')).toBeNull()
    expect(resultUrl('https://translate.google.com/translate?u=https://example.com')).toBeNull()
    expect(resultUrl('#')).toBeNull()
    expect(resultUrl('javascript:void(0)')).toBeNull()
    expect(resultUrl('https://www.google.com/search/howsearchworks/')).toBe('https://www.google.com/search/howsearchworks/')
    expect(resultUrl('https://www.google.com/maps')).toBe('https://www.google.com/maps')
  })

  it('follows an ad click-through to its landing page', () => {
    expect(unwrapGoogleUrl('/aclk?sa=l&ai=x&adurl=https://shop.example/landing')).toBe('https://shop.example/landing')
    expect(unwrapGoogleUrl('https://www.googleadservices.com/pagead/aclk?sa=L&adurl=https://a.example/')).toBe('https://a.example/')
  })
})

describe('text helpers', () => {
  it('keeps words apart across blocks and together across inline tags', () => {
    const $ = cheerio.load('<div><h3>Google</h3><div><cite>https://www.google.com<span> › account</span></cite></div><em>Goo</em>gle</div>')
    expect(textOf($('div')[0])).toBe('Google https://www.google.com › account Google')
  })

  it('splits a leading date from a snippet', () => {
    expect(splitLeadingDate('Mar 3, 2023 — Coffee is a drink.')).toEqual({ date: 'Mar 3, 2023', rest: 'Coffee is a drink.' })
    expect(splitLeadingDate('2 days ago — News.')).toEqual({ date: '2 days ago', rest: 'News.' })
    expect(splitLeadingDate('Apr 29, 2023 · coffee, beverage')).toEqual({ date: 'Apr 29, 2023', rest: 'coffee, beverage' })
    expect(splitLeadingDate('11 янв. 2022 г. — Кофе')).toEqual({ date: '11 янв. 2022 г.', rest: 'Кофе' })
    expect(splitLeadingDate('Items 1 - 42 of 45 · From everyday audio')).toEqual({ rest: 'Items 1 - 42 of 45 · From everyday audio' })
  })

  it('parses counts in any grouping and strips www from domains', () => {
    expect(parseCount('About 25,150,000,000 results')).toBe(25_150_000_000)
    expect(parseCount('Environ 54\u00a0900\u00a0000 résultats')).toBe(54_900_000)
    expect(parseCount('About 141.000.000 results')).toBe(141_000_000)
    expect(domainOf('https://www.Example.co.uk/x')).toBe('example.co.uk')
    expect(domainOf('https://en.m.wikipedia.org/wiki/Coffee')).toBe('en.m.wikipedia.org')
  })
})
