import { describe, expect, it } from 'vitest'
import type { VerticalRequest } from '../../engine.types.ts'
import { buildGooglePatentsRequest } from './google-patents.request.ts'

const base: VerticalRequest = { endpoint: 'patents', q: 'solar panel cleaning robot', num: 10, page: 1 }

/** The Patents page query carried, URL-encoded, in the outer `url` parameter. */
const inner = (req: Partial<VerticalRequest>) => new URLSearchParams(new URL(buildGooglePatentsRequest({ ...base, ...req }).url).searchParams.get('url') ?? '')

describe('buildGooglePatentsRequest', () => {
  it('builds the default request on patents.google.com/xhr/query', () => {
    const { url, headers } = buildGooglePatentsRequest(base)
    expect(url).toBe('https://patents.google.com/xhr/query?url=q%3Dsolar%2520panel%2520cleaning%2520robot%26num%3D10&exp=')
    expect(new URL(url).searchParams.get('exp')).toBe('')
    expect(headers.Accept).toMatch(/^application\/json/)
    expect(headers['User-Agent']).toMatch(/Chrome/)
  })

  it('carries q and num inside the url parameter', () => {
    const p = inner({ q: 'CPC=H02S40/10 "dry cleaning" & brush', num: 100 })
    expect(p.get('q')).toBe('CPC=H02S40/10 "dry cleaning" & brush')
    expect(p.get('num')).toBe('100')
  })

  it('sends page 0-based and leaves it out on the first page', () => {
    expect(inner({}).has('page')).toBe(false)
    expect(inner({ page: 2 }).get('page')).toBe('1')
    expect(inner({ page: 10, num: 20 }).get('page')).toBe('9')
  })

  it('defaults num to 10', () => {
    expect(inner({ num: undefined }).get('num')).toBe('10')
  })
})
