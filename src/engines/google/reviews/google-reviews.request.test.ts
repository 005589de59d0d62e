import { describe, expect, it } from 'vitest'
import { fixture } from '../../../../test/support/fake-upstream.ts'
import { appStateOf } from '../maps/google-maps-page.parse.ts'
import { buildGoogleReviewsRequest } from './google-reviews.request.ts'
import { buildPlaceLookupRequest, parsePlaceIdentity } from './google-reviews-place.resolve.ts'

const FID = '0x14e732fd76f0d90d:0xe5415928d6702b47'
const pbOf = (url: string) => new URL(url).searchParams.get('pb') ?? ''

describe('buildGoogleReviewsRequest', () => {
  it('asks listugcposts for the fid, page size, no cursor, and sort most_relevant', () => {
    const { url, headers } = buildGoogleReviewsRequest({ language: 'en', country: 'us' }, { fid: FID, pageSize: 10, sessionId: 'sess1' })
    expect(url).toBe(
      'https://www.google.com/maps/rpc/listugcposts?authuser=0&hl=en&gl=us&pb=' +
        '!1m6!1s0x14e732fd76f0d90d%3A0xe5415928d6702b47!6m4!4m1!1e1!4m1!1e3!2m2!1i10!2s!5m2!1ssess1!7e81' +
        '!8m9!2b1!3b1!5b1!7b1!12m4!1b1!2b1!4m1!1e1!11m4!1e3!2e1!6m1!1i2!13m1!1e1',
    )
    expect(headers.Referer).toBe('https://www.google.com/maps/')
  })

  it('carries the continuation token, the sort code and the locale', () => {
    const { url } = buildGoogleReviewsRequest(
      { language: 'de', country: 'at', sort: 'lowest_rating' },
      { fid: FID, pageSize: 20, cursor: 'CAESBkVnSUlDZw==', sessionId: 's' },
    )
    const u = new URL(url)
    expect(u.searchParams.get('hl')).toBe('de')
    expect(u.searchParams.get('gl')).toBe('at')
    expect(url).toContain('!2m2!1i20!2sCAESBkVnSUlDZw%3D%3D!5m2')
    expect(pbOf(url).endsWith('!13m1!1e4')).toBe(true)
    const codes = (['most_relevant', 'newest', 'highest_rating', 'lowest_rating'] as const).map((sort) =>
      pbOf(buildGoogleReviewsRequest({ sort }, { fid: FID, pageSize: 1, sessionId: 's' }).url).slice(-1),
    )
    expect(codes).toEqual(['1', '2', '3', '4'])
  })

  it("keeps the page size within Google's 1..20 and escapes pb delimiters in strings", () => {
    expect(pbOf(buildGoogleReviewsRequest({}, { fid: FID, pageSize: 50, sessionId: 's' }).url)).toContain('!1i20!')
    expect(pbOf(buildGoogleReviewsRequest({}, { fid: FID, pageSize: 0, sessionId: 's' }).url)).toContain('!1i1!')
    expect(pbOf(buildGoogleReviewsRequest({}, { fid: FID, pageSize: 5, cursor: 'a!b*c', sessionId: 's' }).url)).toContain('!2sa*21b*2Ac!')
  })
})

describe('place lookup (place_id or cid → fid)', () => {
  it('asks the Maps page for a place_id or a cid', () => {
    expect(buildPlaceLookupRequest({ place_id: 'ChIJDdnwdv0y5xQRRytw1ihZQeU', language: 'en', country: 'cy' }).url).toBe(
      'https://www.google.com/maps/place/?q=place_id:ChIJDdnwdv0y5xQRRytw1ihZQeU&hl=en&gl=cy',
    )
    expect(buildPlaceLookupRequest({ cid: '16519582940102929223', language: 'el', country: 'cy' }).url).toBe(
      'https://www.google.com/maps?cid=16519582940102929223&hl=el&gl=cy',
    )
  })

  it('reads fid, place_id and cid from the real place payloads', () => {
    for (const name of ['gosom-place-kipriakon-limassol.json', 'gosom-place-kipriakon-limassol-2024.json']) {
      expect(parsePlaceIdentity(fixture(`serp/google/maps/${name}`).toString('utf8'))).toMatchObject({
        fid: FID,
        place_id: 'ChIJDdnwdv0y5xQRRytw1ihZQeU',
        cid: '16519582940102929223',
        maps_page: true,
      })
    }
    expect(parsePlaceIdentity(fixture('serp/google/maps/gosom-place-edgecase-panic2.json').toString('utf8'))).toMatchObject({
      fid: '0x14e775b739165b35:0x7e80ca7641cd7953',
      place_id: 'ChIJNVsWObd15xQRU3nNQXbKgH4',
      cid: '9115508255056820563',
      title: 'Island Beach Bar and Restaurant',
    })
  })

  it('reads them from the real Maps place page (APP_INITIALIZATION_STATE)', () => {
    const html = fixture('serp/google/maps/gosom-place-page-tipsy-sticks.html').toString('utf8')
    expect(parsePlaceIdentity(html)).toEqual({
      fid: '0x14de1786bd2659b9:0xb7f6e65826fa9ddb',
      place_id: 'ChIJuVkmvYYX3hQR2536Jljm9rc',
      cid: '13256035819497102811',
      title: 'Tipsy Sticks',
      maps_page: true,
    })
  })

  it('falls back to the place summary, the final URL, then the fid matching the cid', () => {
    const html = fixture('serp/google/maps/gosom-place-page-tipsy-sticks.html').toString('utf8')
    // The real page's state without the place-details slot [3][6]: the summary at [3][5] still names the fid.
    const state = appStateOf(html) as unknown[][]
    state[3]![6] = null
    const withoutDetails = `<script>window.APP_INITIALIZATION_STATE=${JSON.stringify(state)};window.APP_FLAGS=[];</script>`
    expect(parsePlaceIdentity(withoutDetails)).toEqual({ fid: '0x14de1786bd2659b9:0xb7f6e65826fa9ddb', cid: '13256035819497102811', maps_page: true })

    const shell = '<html><script>window.APP_INITIALIZATION_STATE=[[[1,2,3]],null,null,[null,null,null,null,null,null,null]];</script></html>'
    const redirected = 'https://www.google.com/maps/place/Kipriakon/data=!4m2!3m1!1s0x14e732fd76f0d90d:0xe5415928d6702b47!10m1!1e1'
    expect(parsePlaceIdentity(shell, redirected)).toEqual({ fid: FID, cid: '16519582940102929223', maps_page: true })

    const mentions = `${shell}<a href="/maps/preview/place?pb=!1s0x14e732fd76f0d90d%3A0xe5415928d6702b47">x</a> 0x1:0x2 0xab:0xe5415928d6702b47`
    expect(parsePlaceIdentity(mentions.replace('%3A', ':'), undefined, '16519582940102929223').fid).toBe(FID)
    expect(parsePlaceIdentity(mentions, undefined, '1').fid).toBeUndefined()
  })

  it('finds nothing in a CAPTCHA page or a Maps page without a place', () => {
    const recaptcha = fixture('serp/google/web-desktop/zlurad-recaptcha.html').toString('utf8')
    expect(parsePlaceIdentity(recaptcha)).toEqual({ maps_page: false })
    expect(parsePlaceIdentity('<script>window.APP_INITIALIZATION_STATE=[[],null,null,[]];</script>')).toEqual({ maps_page: true })
  })
})
