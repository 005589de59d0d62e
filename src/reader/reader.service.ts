import { countTokens, trimToTokens } from '../text/tokens.ts'
import { isEmpty, readContent } from './reader.core.ts'
import type { ReadInput, ReadOptions, ReadResult } from './reading.types.ts'

export { extractHtml } from './reader.core.ts'
export type { ReadInput, ReadOptions, ReadResult } from './reading.types.ts'

/**
 * Reads a fetched document (HTML, XHTML, PDF or plain text) into the requested format with its
 * title, date and metadata. A page with no readable content is not an error here: the result
 * has `empty: true` and '' as content, and the route reports `empty_page`.
 */
export async function readDocument(input: ReadInput, opts: ReadOptions): Promise<ReadResult> {
  const { maxTokens, ...rest } = opts
  const read = await readContent(input, rest)
  let content = read[opts.format] ?? ''
  let trimmed = false
  let tokens: number | undefined
  if (maxTokens !== undefined) ({ text: content, trimmed, tokens } = await trimToTokens(content, maxTokens))
  const result: ReadResult = { ...read, tokens: tokens ?? (await countTokens(content)), trimmed, empty: isEmpty(content, opts.format) }
  result[opts.format] = content
  return result
}
