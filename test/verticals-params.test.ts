import { describe, expect, test } from 'vitest'
import { errorOf, expectBooksBalanced } from './support/books.ts'
import { engineSuite } from './support/engine-suite.ts'
import { serpRouter } from './support/serp-router.ts'

/** Parameter handling every vertical shares: nothing here reaches the upstream or costs a credit. */
const suite = engineSuite(serpRouter([]), { credits: 50 })

describe('each vertical takes exactly the parameters that apply to it', () => {
  const outside: [string, Record<string, unknown>, RegExp][] = [
    ['/v1/news', { q: 'a', safe: 'active' }, /^safe is only supported on \/v1\/search, \/v1\/images$/],
    ['/v1/news', { q: 'a', include_content: 2 }, /^include_content is only supported on \/v1\/search$/],
    ['/v1/images', { q: 'a', location: 'Paris,France' }, /location.*\/v1\/search/],
    ['/v1/videos', { q: 'a', device: 'mobile' }, /^device is only supported on \/v1\/search$/],
    ['/v1/maps', { q: 'a', num: 20 }, /^unknown parameter num: \/v1\/maps does not take it/],
    ['/v1/places', { q: 'a', ll: '@40.7,-74.0,14z' }, /^ll is only supported on \/v1\/search, \/v1\/maps$/],
    ['/v1/shopping', { q: 'a', time: 'day' }, /time.*\/v1\/news/],
    ['/v1/scholar', { q: 'a', country: 'de' }, /^unknown parameter country: \/v1\/scholar does not take it/],
    ['/v1/patents', { q: 'a', language: 'de' }, /^unknown parameter language/],
    ['/v1/patents', { q: 'a', max_age: 60 }, /^unknown parameter max_age/],
    ['/v1/autocomplete', { q: 'a', fields: 'results.value' }, /^unknown parameter fields/],
    ['/v1/autocomplete', { q: 'a', max_age: 60 }, /^unknown parameter max_age/],
    ['/v1/lens', { url: 'https://example.com/a.jpg', format: 'json' }, /^unknown parameter format/],
    ['/v1/lens', { url: 'https://example.com/a.jpg', q: 'cat' }, /^unknown parameter q/],
    ['/v1/reviews', { place_id: 'ChIJN1t_tDeuEmsRUsoyG83frY4', page: 2 }, /^unknown parameter page/],
    ['/v1/reviews', { place_id: 'ChIJN1t_tDeuEmsRUsoyG83frY4', q: 'pizza' }, /^unknown parameter q/],
    ['/v1/images', { q: 'a', gl: 'de' }, /^unknown parameter gl: use country$/],
  ]
  test.each(outside)('%s refuses %j', async (path, body, message) => {
    const res = await suite.post(path, body)
    expect(await errorOf(res)).toMatchObject({ status: 400, code: 'invalid_request', message: expect.stringMatching(message) })
    expect(res.headers.get('x-credits-used')).toBe('0')
  })

  const bad: [string, string, RegExp][] = [
    ['/v1/news', 'q=a&num=15', /num must be one of 10, 20, 30, 50, 100/],
    ['/v1/images', 'q=a&num=20&page=2', /num > 10 \(depth\) requires page=1/],
    ['/v1/videos', 'q=a&page=11', /page must be between 1 and 10/],
    ['/v1/maps', 'q=a&ll=40.7,-74', /ll must look like @40.7455096,-74.0083012,14z/],
    ['/v1/shopping', 'q=a&location=Paris&uule=w%2BCAIQICIFUGFyaXM', /send location or uule, not both/],
    ['/v1/scholar', '', /q is required/],
    ['/v1/autocomplete', 'q=a&format=markdown', /format must be json or compact/],
    ['/v1/lens', 'url=ftp://example.com/a.jpg', /url must be a public http\(s\) image URL/],
    ['/v1/reviews', 'sort=newest', /place_id, cid or fid is required/],
    ['/v1/reviews', 'cid=123&num=51', /num must be between 1 and 50/],
    ['/v1/reviews', 'cid=123&sort=oldest', /sort must be one of most_relevant, newest, highest_rating, lowest_rating/],
    ['/v1/reviews', 'fid=0x1:zz', /fid must look like/],
    ['/v1/news', 'q=a&engine=wikipedia', /engine wikipedia does not offer \/v1\/news; engines that do: google, bing$/],
    ['/v1/images', 'q=a&format=markdown&fields=results.title', /fields cannot be combined with format=markdown/],
    ['/v1/news', 'q=a&fields=results.nope,bogus', /fields/],
  ]
  test.each(bad)('GET %s?%s is a 400 naming the parameter', async (path, query, message) => {
    const res = await suite.get(path, query)
    expect(await errorOf(res)).toMatchObject({ status: 400, code: 'invalid_request', message: expect.stringMatching(message) })
  })

  test('a JSON array body is refused on every vertical', async () => {
    for (const path of ['/v1/news', '/v1/maps', '/v1/reviews', '/v1/lens', '/v1/autocomplete']) {
      const res = await suite.post(path, [{ q: 'a' }])
      expect(await errorOf(res)).toMatchObject({ status: 400, message: expect.stringMatching(/array/) })
    }
  })

  test('none of the refusals reached the upstream or moved a credit', async () => {
    expect(suite.upstream.seen).toHaveLength(0)
    expect(await expectBooksBalanced(suite.trawl, suite.account.id)).toBe(50)
  })
})
