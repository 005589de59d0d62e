/**
 * The output layer every search vertical shares: turns a response body into the bytes sent for format=json,
 * format=compact, format=markdown and fields=. Routes call `validateOutputOptions` while parsing the request (so a
 * bad `fields=` fails before any upstream work or billing) and `renderSearchResponse` to shape the reply.
 *
 * Combinations:
 * - json: the body with every key of the vertical's response schema present (null when unknown, see stable-shape.ts).
 * - json + fields: the projection alone (every top-level key stays; unnamed ones keep no fields).
 * - compact + fields: the caller's paths choose the fields (an explicit choice beats compact's defaults); compact
 *   then only drops null and empty values.
 * - markdown + fields: rejected. Markdown layouts need particular fields, so silently ignoring `fields` or
 *   printing a half-empty layout would both surprise the caller.
 */
import { ApiError } from '../../../errors.ts'
import { compactBody, pruneBody } from './compact.format.ts'
import { type FieldPath, parseFields, projectFields } from './fields.projection.ts'
import { assertFormatAllowed, renderMarkdown } from './markdown.format.ts'
import { endpointPath, type JsonObject, type OutputFormat, topLevelKeys, type Vertical } from './output.types.ts'
import { bodyBytes, completeBody } from './stable-shape.ts'

export { compactBody } from './compact.format.ts'
export { type FieldPath, MAX_FIELD_PATHS, parseFields, projectFields } from './fields.projection.ts'
export { assertFormatAllowed, MARKDOWN_VERTICALS, renderMarkdown } from './markdown.format.ts'
export {
  endpointPath,
  type OutputFormat,
  type ResponseBody,
  topLevelKeys,
  VERTICALS,
  type Vertical,
} from './output.types.ts'

export interface OutputOptions {
  format: OutputFormat
  /** The raw `fields=` value, when the request had one. */
  fields?: string
}

export const JSON_CONTENT_TYPE = 'application/json; charset=utf-8'
export const MARKDOWN_CONTENT_TYPE = 'text/markdown; charset=utf-8'

export interface RenderedResponse {
  contentType: typeof JSON_CONTENT_TYPE | typeof MARKDOWN_CONTENT_TYPE
  payload: string
  /** The text X-Tokens-Estimate is counted on: exactly what is sent, so the header matches the reader's cost. */
  tokensText: string
}

/** What a search sends: JSON as UTF-8 bytes (stable-shape.ts `bodyBytes`), its text only when asked for. */
export interface RenderedReply {
  contentType: RenderedResponse['contentType']
  payload: string | Buffer
  /** The text X-Tokens-Estimate is counted on (a cache hit counts it once per entry: lookup.reply.ts). */
  tokensText(): string
}

/**
 * Checks that `format` and `fields` are offered on `vertical` and returns the parsed `fields=` paths.
 * Throws `invalid_request` naming the parameter.
 */
export function validateOutputOptions(vertical: Vertical, options: OutputOptions): FieldPath[] | undefined {
  assertFormatAllowed(vertical, options.format)
  if (options.fields === undefined) return undefined
  if (vertical === 'autocomplete') {
    // fields= is offered on every vertical except autocomplete, whose items have one field.
    throw new ApiError('invalid_request', `fields is not available on ${endpointPath(vertical)}`)
  }
  if (options.format === 'markdown') {
    throw new ApiError('invalid_request', 'fields cannot be combined with format=markdown; use format=json or format=compact with fields')
  }
  return parseFields(options.fields, topLevelKeys(vertical))
}

/** Renders a vertical's response body in the requested format, as text. Throws `invalid_request` on bad options. */
export function renderSearchResponse(vertical: Vertical, body: JsonObject, options: OutputOptions): RenderedResponse {
  const reply = renderSearchReply(vertical, body, options)
  const text = reply.tokensText()
  return { contentType: reply.contentType, payload: text, tokensText: text }
}

/** renderSearchResponse for the wire: the JSON formats as bytes. */
export function renderSearchReply(vertical: Vertical, body: JsonObject, options: OutputOptions): RenderedReply {
  const fields = validateOutputOptions(vertical, options)
  if (options.format === 'markdown') {
    const markdown = renderMarkdown(vertical, body)
    return { contentType: MARKDOWN_CONTENT_TYPE, payload: markdown, tokensText: () => markdown }
  }
  // Every format starts from the complete body, so the top-level keys are the same in each (README.md "Stable shapes").
  const complete = completeBody(vertical, body)
  let shaped: object
  if (fields) {
    const projected = projectFields(complete, fields)
    shaped = options.format === 'compact' ? pruneBody(projected) : projected
  } else {
    shaped = options.format === 'compact' ? compactBody(vertical, complete) : complete
  }
  // No indentation: every space is a token a model pays for, and clients parse it anyway.
  const payload = bodyBytes(shaped)
  return { contentType: JSON_CONTENT_TYPE, payload, tokensText: () => payload.toString('utf8') }
}
