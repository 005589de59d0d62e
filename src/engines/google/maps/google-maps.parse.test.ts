import { describe, expect, it } from 'vitest'
import { fixture } from '../../../../test/support/fake-upstream.ts'
import type { EngineFetch } from '../../provider.types.ts'
import { detectMapsJsonBlock, detectMapsPageBlock } from './google-maps.block.ts'
import { parseGoogleMaps } from './google-maps.parse.ts'
import { googleMaps } from './google-maps.ts'
import { cidFromFid, cidHex, parseMapsJson } from './google-maps-json.ts'
import { parseGooglePlaces } from './google-places.parse.ts'
import { googlePlaces } from './google-places.ts'

const read = (name: string) => fixture(`serp/google/maps/${name}`).toString('utf8')
const coffee = read('gosom-search-coffee.json')
const recaptcha = fixture('serp/google/web-desktop/zlurad-recaptcha.html').toString('utf8')

describe('parseGoogleMaps: tbm=map search (real capture, "coffee" near Ilion, Greece)', () => {
  const page = parseGoogleMaps(coffee)

  it('reads the 20 places in order', () => {
    expect(page.parse_quality).toBe('ok')
    expect(page.results).toHaveLength(20)
    expect(page.results.map((p) => p.position)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1))
    expect(page.results.slice(0, 4).map((p) => p.title)).toEqual(['Dream Coffee', 'Cocoza Speciality Coffee', 'Coffee Maniacs micro roasters', 'SEVEN STEPS'])
    expect(page.results[19]?.title).toBe('West Coffee Saloon')
  })

  it('fills every field the record carries', () => {
    expect(page.results[0]).toEqual({
      position: 1,
      title: 'Dream Coffee',
      address: 'Eakou 74, Ilion 131 22, Greece',
      latitude: 38.0331931,
      longitude: 23.7094475,
      rating: 4.8,
      rating_count: 48,
      type: 'Coffee shop',
      types: ['Coffee shop'],
      website: 'https://www.vrisko.gr/details/ag2e4fci67301a_44_3i4a4c_f341701',
      phone_number: '+30 21 0261 6578',
      opening_hours: {
        Saturday: '7 AM–8:30 PM',
        Sunday: 'Closed',
        Monday: '7 AM–8:30 PM',
        Tuesday: '7 AM–8:30 PM',
        Wednesday: '7 AM–8:30 PM',
        Thursday: '7 AM–8:30 PM',
        Friday: '7 AM–8:30 PM',
      },
      place_id: 'ChIJoRVrMS-joRQRkzrMbbRUnBY',
      cid: '1629270299114224275',
      fid: '0x14a1a32f316b15a1:0x169c54b46dcc3a93',
    })
  })

  it('reads price levels, several types and leaves out what a place lacks', () => {
    const nook = page.results.find((p) => p.title === 'NooK')!
    expect(nook).toMatchObject({ position: 15, price_level: '$$', rating: 4.7, rating_count: 1670, website: 'https://nookofficial.gr/' })
    expect(nook.types).toEqual(['Coffee shop', 'Breakfast restaurant', 'Coffee store', 'Diner', 'Restaurant'])
    expect(page.results[4]).toMatchObject({ title: 'Coffee Berry Ίλιον', price_level: '$' })
    expect(page.results[1]?.website).toBeUndefined()
    expect(page.results[1]?.price_level).toBeUndefined()
    // Race Coffee's record has no weekly table: no opening_hours rather than an empty object.
    expect(page.results[7]).toMatchObject({ title: 'Race Coffee' })
    expect(page.results[7]?.opening_hours).toBeUndefined()
  })

  it('derives the cid from the fid as Google does (the business-profile link carries the same number)', () => {
    // The record's "claim this business" link: business.google.com/create?fp=1629270299114224275
    expect(coffee.includes('create?fp\\u003d1629270299114224275')).toBe(true)
    expect(cidFromFid('0x14a1a32f316b15a1:0x169c54b46dcc3a93')).toBe('1629270299114224275')
    expect(cidFromFid('0x14e732fd76f0d90d:0xe5415928d6702b47')).toBe('16519582940102929223') // above 2^63
    expect(cidFromFid('0x0:0x0')).toBeUndefined()
    expect(cidHex('16519582940102929223')).toBe('0xe5415928d6702b47')
    expect(cidHex('18446744073709551616')).toBeUndefined() // 2^64
  })

  it('continues positions on later pages (20 places a page)', () => {
    const p2 = parseGoogleMaps(coffee, { page: 2 })
    expect(p2.results[0]).toMatchObject({ position: 21, title: 'Dream Coffee' })
    expect(p2.results[19]?.position).toBe(40)
  })

  it('strips the XSSI prefix and the {"c","d"} envelope', () => {
    const prefixed = `)]}'\n${coffee}`
    const enveloped = `${JSON.stringify({ c: 0, d: prefixed })}/*""*/`
    expect(parseGoogleMaps(prefixed).results).toHaveLength(20)
    expect(parseGoogleMaps(enveloped).results.map((p) => p.title)).toEqual(page.results.map((p) => p.title))
  })

  it('reads the 2026 layout (list at [64], record at entry[1])', () => {
    const data = parseMapsJson(coffee) as unknown[][]
    const records = (data[0]![1] as unknown[][]).slice(1).map((entry) => entry[14])
    const moved: unknown[] = []
    moved[64] = records.map((rec) => [null, rec])
    const p = parseGoogleMaps(JSON.stringify(moved))
    expect(p.parse_quality).toBe('ok')
    expect(p.results).toHaveLength(20)
    expect(p.results[0]?.fid).toBe('0x14a1a32f316b15a1:0x169c54b46dcc3a93')
  })

  it('finds records in an unknown layout by scanning, and says partial', () => {
    const data = parseMapsJson(coffee) as unknown[][]
    const records = (data[0]![1] as unknown[][]).slice(1, 4).map((entry) => entry[14])
    const p = parseGoogleMaps(JSON.stringify([null, [[null, records]]]))
    expect(p.parse_quality).toBe('partial')
    expect(p.results.map((r) => r.title)).toEqual(['Dream Coffee', 'Cocoza Speciality Coffee', 'Coffee Maniacs micro roasters'])
  })

  it('gives no results, without throwing, for non-Maps bodies', () => {
    for (const body of [recaptcha, '', ")]}'\n[null,[", ')]}\'\n{"a":1}', '[[["coffee",[]]]]', '[1,2,3]']) {
      expect(parseGoogleMaps(body)).toEqual({ results: [], parse_quality: 'empty' })
    }
  })
})

describe('parseGoogleMaps: place details payloads and the place page (real captures)', () => {
  it('reads Kipriakon (2023) with price, hours and thumbnail', () => {
    const { results, parse_quality } = parseGoogleMaps(read('gosom-place-kipriakon-limassol.json'))
    expect(parse_quality).toBe('ok')
    expect(results).toEqual([
      {
        position: 1,
        title: 'Kipriakon',
        address: 'Old port, Limassol 3042',
        latitude: 34.670595399999996,
        longitude: 33.042456699999995,
        rating: 4.2,
        rating_count: 396,
        price_level: '€€',
        type: 'Restaurant',
        types: ['Restaurant'],
        phone_number: '25 101555',
        opening_hours: {
          Monday: '12:30–10 pm',
          Tuesday: '12:30–10 pm',
          Wednesday: '12:30–10 pm',
          Thursday: '12:30–10 pm',
          Friday: '12:30–10 pm',
          Saturday: '12:30–10 pm',
          Sunday: '12:30–10 pm',
        },
        thumbnail_url: 'https://lh5.googleusercontent.com/p/AF1QipP4Y7A8nYL3KKXznSl69pXSq9p2IXCYUjVvOh0F=w86-h86-k-no',
        place_id: 'ChIJDdnwdv0y5xQRRytw1ihZQeU',
        cid: '16519582940102929223',
        fid: '0x14e732fd76f0d90d:0xe5415928d6702b47',
      },
    ])
  })

  it('reads the Greek re-capture (2024), decoding the doubly escaped thumbnail URL', () => {
    const [place] = parseGoogleMaps(read('gosom-place-kipriakon-limassol-2024.json')).results
    expect(place).toMatchObject({ title: 'Κυπριακόν', address: 'Old port, Λεμεσός 3042', rating: 4.1, rating_count: 516, type: 'Εστιατόριο' })
    expect(place?.opening_hours?.Σάββατο).toBe('9:00 π.μ.–11:30 μ.μ.')
    expect(place?.thumbnail_url).toBe('https://lh5.googleusercontent.com/p/AF1QipP4Y7A8nYL3KKXznSl69pXSq9p2IXCYUjVvOh0F=w86-h86-k-no')
    expect(place?.fid).toBe('0x14e732fd76f0d90d:0xe5415928d6702b47')
  })

  it('reads the payload that crashed other parsers (no hours table) without throwing', () => {
    const { results, parse_quality } = parseGoogleMaps(read('gosom-place-edgecase-panic2.json'))
    expect(parse_quality).toBe('ok')
    expect(results[0]).toMatchObject({
      title: 'Island Beach Bar and Restaurant',
      types: ['Restaurant', 'Cocktail bar'],
      rating: 4.4,
      rating_count: 504,
      place_id: 'ChIJNVsWObd15xQRU3nNQXbKgH4',
      cid: '9115508255056820563',
    })
    expect(results[0]?.opening_hours).toBeUndefined()
  })

  it('reads the place out of a Maps web page (APP_INITIALIZATION_STATE[3][6])', () => {
    const [place] = parseGoogleMaps(read('gosom-place-page-tipsy-sticks.html')).results
    expect(place).toMatchObject({
      position: 1,
      title: 'Tipsy Sticks',
      address: 'Stasandrou 10, Nicosia 1060',
      rating: 4.7,
      rating_count: 20,
      types: ['Restaurant', 'Bar'],
      website: 'https://www.thetipsysticks.com/',
      phone_number: '22 783333',
      place_id: 'ChIJuVkmvYYX3hQR2536Jljm9rc',
      cid: '13256035819497102811',
      fid: '0x14de1786bd2659b9:0xb7f6e65826fa9ddb',
    })
    expect(place?.opening_hours).toMatchObject({ Monday: 'Closed', Saturday: '10 am–1 am' })
  })
})

describe('parseGooglePlaces', () => {
  it('projects the Maps places to the places fields', () => {
    const { results, parse_quality } = parseGooglePlaces(coffee)
    expect(parse_quality).toBe('ok')
    expect(results).toHaveLength(20)
    expect(results[0]).toEqual({
      position: 1,
      title: 'Dream Coffee',
      address: 'Eakou 74, Ilion 131 22, Greece',
      latitude: 38.0331931,
      longitude: 23.7094475,
      rating: 4.8,
      rating_count: 48,
      type: 'Coffee shop',
      phone_number: '+30 21 0261 6578',
      website: 'https://www.vrisko.gr/details/ag2e4fci67301a_44_3i4a4c_f341701',
      place_id: 'ChIJoRVrMS-joRQRkzrMbbRUnBY',
      cid: '1629270299114224275',
    })
  })
})

describe('Maps block detection', () => {
  const at = (url: string, body: string, status = 200) => ({ url, body, status })

  it('refuses a CAPTCHA page served where JSON belongs, and the sorry/consent redirects', () => {
    expect(detectMapsJsonBlock(at('https://www.google.com/search?tbm=map&q=coffee', recaptcha))?.reason).toBe('CAPTCHA page')
    expect(detectMapsJsonBlock(at('https://www.google.com/sorry/index?continue=x', ''))).not.toBeNull()
    expect(detectMapsJsonBlock(at('https://consent.google.com/ml?continue=x', ''))?.reason).toMatch(/consent/)
    expect(detectMapsJsonBlock(at('https://www.google.com/search', '<!doctype html><html><body>Something else</body></html>'))?.reason).toMatch(/HTML page/)
  })

  it('lets Maps JSON and Maps pages through', () => {
    expect(detectMapsJsonBlock(at('https://www.google.com/search?tbm=map', `)]}'\n${coffee}`))).toBeNull()
    expect(detectMapsJsonBlock(at('https://www.google.com/search?tbm=map', coffee))).toBeNull()
    expect(detectMapsPageBlock(at('https://www.google.com/maps/place/Tipsy+Sticks', read('gosom-place-page-tipsy-sticks.html')))).toBeNull()
    expect(detectMapsPageBlock(at('https://www.google.com/maps?cid=1', recaptcha))?.reason).toBe('CAPTCHA page')
  })
})

describe('googleMaps / googlePlaces engine verticals', () => {
  it('fetch the Maps search URL with the Maps block detector and parse the answer', async () => {
    const seen: string[] = []
    const fetch: EngineFetch = async (url, _headers, detectBlock) => {
      seen.push(url)
      expect(detectBlock?.({ status: 200, url, body: recaptcha })).not.toBeNull()
      return { status: 200, url, body: `)]}'\n${coffee}` }
    }
    const maps = await googleMaps.run({ endpoint: 'maps', q: 'coffee', country: 'gr', language: 'en', page: 2, ll: '@38.0289,23.7,15z' }, fetch)
    expect(maps.results[0]).toMatchObject({ position: 21, title: 'Dream Coffee', opening_hours: { Sunday: 'Closed' } })
    expect(seen[0]).toContain('!8i20')
    expect(seen[0]).toContain('!3d38.0289')
    const places = await googlePlaces.run({ endpoint: 'places', q: 'coffee', country: 'gr', language: 'en', page: 1 }, fetch)
    expect(places.results[0]).not.toHaveProperty('opening_hours')
    expect(places.results[0]).toMatchObject({ position: 1, cid: '1629270299114224275' })
    expect(seen[1]).not.toContain('!4m12')
  })
})
