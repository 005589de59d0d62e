import { describe, expect, test } from 'vitest'
import { ApiError } from '../../errors.ts'
import { isFallbackError } from '../fallback-walk.ts'
import { asEngineError, UpstreamError } from './upstream-error.ts'

describe('asEngineError', () => {
  test("a parser's own failure is that engine's unreadable page: an upstream_error the walk moves past", () => {
    const err = asEngineError(new RangeError('Maximum call stack size exceeded'), 'google')
    expect(err).toBeInstanceOf(UpstreamError)
    expect(isFallbackError(err)).toBe(true)
    expect((err as UpstreamError).message).toBe('google answered a page that could not be read (Maximum call stack size exceeded)')
  })

  test("Trawl's own errors and aborts stay as they are", () => {
    const invalid = new ApiError('invalid_request', 'engine x does not offer this request')
    expect(asEngineError(invalid, 'google')).toBe(invalid)
    const abort = new DOMException('stopped', 'AbortError')
    expect(asEngineError(abort, 'google')).toBe(abort)
  })
})
