import type { FastifyRequest } from 'fastify'
import { describe, expect, test } from 'vitest'
import { z } from 'zod'
import { parseInput } from './parse-input.ts'

const Params = z.strictObject({ q: z.string().min(1), num: z.number().int().optional(), sites: z.array(z.string()).optional() })

/** A GET as parseInput reads it: the raw URL and Fastify's parsed query. */
const get = (url: string, query: Record<string, string | string[]>) => ({ method: 'GET', url, query }) as unknown as FastifyRequest

describe('parseInput on GET: parameters remembered by query string', () => {
  test('the same query string parses to equal parameters, each caller with its own copy', () => {
    const url = '/x?q=coffee&num=20&sites=a.com,b.com'
    const query = { q: 'coffee', num: '20', sites: 'a.com,b.com' }
    const first = parseInput(Params, get(url, query))
    first.sites?.push('changed.com')
    first.num = 99
    const second = parseInput(Params, get(url, query))
    expect(second).toEqual({ q: 'coffee', num: 20, sites: ['a.com', 'b.com'] })
    second.sites?.pop()
    expect(parseInput(Params, get(url, query))).toEqual({ q: 'coffee', num: 20, sites: ['a.com', 'b.com'] })
  })

  test('a failure is reported every time, never remembered as a success', () => {
    const url = '/x?num=20'
    for (let i = 0; i < 2; i++) expect(() => parseInput(Params, get(url, { num: '20' }))).toThrow('q is required')
  })

  test('a different ignore list is a different parse', () => {
    const url = '/x?q=coffee&api_key=k'
    const query = { q: 'coffee', api_key: 'k' }
    expect(parseInput(Params, get(url, query), { ignore: ['api_key'] })).toEqual({ q: 'coffee' })
    expect(() => parseInput(Params, get(url, query))).toThrow(/api_key/)
  })
})
