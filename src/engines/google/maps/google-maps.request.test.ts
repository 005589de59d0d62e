import { describe, expect, it } from 'vitest'
import { fixture } from '../../../../test/support/fake-upstream.ts'
import { ApiError } from '../../../errors.ts'
import type { VerticalRequest } from '../../engine.types.ts'
import { buildGoogleMapsRequest, buildMapsPb, parseLl, viewportAltitude } from './google-maps.request.ts'
import { at, parseMapsJson } from './google-maps-json.ts'
import { appStateOf } from './google-maps-page.parse.ts'
import { buildGooglePlacesRequest } from './google-places.request.ts'

const base: VerticalRequest = { endpoint: 'maps', q: 'coffee', country: 'us', language: 'en', page: 1 }

const pbOf = (url: string) => new URL(url).searchParams.get('pb') ?? ''

describe('buildGoogleMapsRequest', () => {
  it('asks www.google.com/search with tbm=map, hl, gl, q and a pb of 20 places', () => {
    const { url, headers } = buildGoogleMapsRequest(base)
    expect(url.startsWith('https://www.google.com/search?tbm=map&authuser=0&hl=en&gl=us&q=coffee&pb=!7i20!10b1!12m22!')).toBe(true)
    expect(pbOf(url)).not.toContain('!4m12') // no viewport without ll
    expect(pbOf(url)).not.toContain('!8i')
    expect(headers.Accept).toBe('*/*')
    expect(headers.Referer).toBe('https://www.google.com/maps/')
    expect(headers.Cookie).toContain('SOCS=')
  })

  it('puts language and country into hl and gl and escapes the query', () => {
    const u = new URL(buildGoogleMapsRequest({ ...base, q: 'café & bar', language: 'pt-BR', country: 'br' }).url)
    expect(u.searchParams.get('hl')).toBe('pt-BR')
    expect(u.searchParams.get('gl')).toBe('br')
    expect(u.searchParams.get('q')).toBe('café & bar')
  })

  it('turns page into the !8i offset of 20 places per page', () => {
    expect(pbOf(buildGoogleMapsRequest({ ...base, page: 2 }).url)).toContain('!7i20!8i20!10b1')
    expect(pbOf(buildGoogleMapsRequest({ ...base, page: 3 }).url)).toContain('!7i20!8i40!10b1')
  })

  it('turns ll into the viewport message: camera distance, centre, window size, field of view', () => {
    const pb = pbOf(buildGoogleMapsRequest({ ...base, ll: '@40.7455096,-74.0083012,14z' }).url)
    const altitude = viewportAltitude(40.7455096, 14)
    expect(pb.startsWith(`!4m12!1m3!1d${Number(altitude.toFixed(3))}!2d-74.0083012!3d40.7455096!2m3!1f0!2f0!3f0!3m2!1i1024!2i768!4f13.1!7i20`)).toBe(true)
    expect(altitude).toBeGreaterThan(20_000)
    expect(altitude).toBeLessThan(30_000)
  })

  it('computes the camera distance Google itself reports for a zoom', () => {
    // Google's Maps page for Tipsy Sticks echoes its viewport [[altitude, lng, lat], …, [1024, 768], 13.1]
    // at zoom 15; the Kipriakon place payload does so at zoom 17.
    const state = appStateOf(fixture('serp/google/maps/gosom-place-page-tipsy-sticks.html').toString('utf8'))
    const [altitude, , lat] = at(state, 0, 0) as number[]
    expect(altitude).toBeCloseTo(13047.69, 1)
    expect(viewportAltitude(lat!, 15) / altitude!).toBeCloseTo(1, 2)
    const place = parseMapsJson(fixture('serp/google/maps/gosom-place-kipriakon-limassol.json').toString('utf8'))
    const [altitude2, , lat2] = at(place, 4, 0) as number[]
    expect(viewportAltitude(lat2!, 17) / altitude2!).toBeCloseTo(1, 2)
  })

  it('reads ll with a fractional or missing zoom and refuses a malformed one', () => {
    expect(parseLl('@-33.8688,151.2093,15.5z')).toEqual({ lat: -33.8688, lng: 151.2093, zoom: 15.5 })
    expect(parseLl('@48.85,2.35')).toEqual({ lat: 48.85, lng: 2.35, zoom: 14 })
    expect(() => parseLl('48.85;2.35')).toThrow(ApiError)
    expect(() => parseLl('@95,2.35,10z')).toThrow(/ll must look like/)
  })

  it('sends location as uule and passes an explicit uule through', () => {
    const viaLocation = new URL(buildGoogleMapsRequest({ ...base, location: 'Austin, Texas, United States' }).url)
    expect(viaLocation.searchParams.get('uule')?.startsWith('w CAIQICI')).toBe(true) // "+" reads back as a space
    expect(buildGoogleMapsRequest({ ...base, uule: 'w+CAIQICIGUGFyaXM' }).url).toContain('&uule=w+CAIQICIGUGFyaXM&')
  })

  it('keeps the pb separators readable and its sub-message counts consistent', () => {
    const pb = buildMapsPb({ lat: 1, lng: 2, zoom: 10 }, 0)
    expect(pb).toMatch(/^!4m12!1m3!1d[\d.]+!2d2!3d1!2m3/)
    expect(pb).toContain('!19m4!2m3!1i360!2i120!4i8!34m19!')
    expect(encodeURIComponent(pb)).toBe(pb.replace(/:/g, '%3A'))
  })
})

describe('buildGooglePlacesRequest', () => {
  it('is the Maps request without a viewport', () => {
    const { url } = buildGooglePlacesRequest({ ...base, endpoint: 'places', ll: '@40.7,-74.0,14z', page: 2 })
    expect(pbOf(url).startsWith('!7i20!8i20!10b1')).toBe(true)
    expect(url).toContain('tbm=map')
  })
})
