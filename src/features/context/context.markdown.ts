import { inline, link } from '../../text/markdown.text.ts'
import type { ContextResponse } from './context.schema.ts'

/**
 * A /v1/context answer as Markdown, for the MCP tool and `trawl context`: each passage under a
 * numbered heading naming its page, then the sources. Titles are escaped (third-party text); the
 * passages are the reader's own Markdown, passed on as read.
 */

/**
 * What the renderer reads of an answer (ContextResponse, context.schema.ts): `request` and `meta`
 * may be missing or partial (an answer from another server version), and are read defensively.
 */
export type ContextLike = Pick<ContextResponse, 'passages' | 'sources'> & {
  answer?: ContextResponse['answer']
  request?: { q?: unknown }
  meta?: Partial<ContextResponse['meta']>
}

export function renderContextMarkdown(body: ContextLike): string {
  const q = typeof body.request?.q === 'string' ? body.request.q : ''
  const out: string[] = [`# Context${q ? `: ${inline(q)}` : ''}`]
  const read = body.sources.filter((s) => s.read).length
  const summary = `${body.passages.length} passage${body.passages.length === 1 ? '' : 's'}, ${body.meta?.tokens_used ?? 0} tokens, from ${read} page${read === 1 ? '' : 's'} read${body.meta?.truncated ? '; more matched than the budget holds (max_tokens)' : ''}.`
  out.push(summary)
  // Notes are ours (a fallback to the pages' leads, an embeddings endpoint that failed); an older server sends none.
  for (const note of Array.isArray(body.meta?.notes) ? body.meta.notes : []) out.push(`Note: ${inline(String(note))}.`)
  // The model's answer, checked against the passages: its [n] are the numbered passages below.
  if (body.answer?.text) out.push(`## Answer\n\n${body.answer.text.trim()}`)
  else if (body.answer === null) out.push('No answer could be written from the passages.')
  if (body.passages.length === 0) out.push(read > 0 ? 'No passage of the pages read matches the query.' : 'No page could be read for this query.')
  body.passages.forEach((p, i) => {
    const where = [`result ${p.position}`, p.heading ? `under “${inline(p.heading)}”` : '', `score ${p.score}`, `${p.tokens} tokens`]
      .filter(Boolean)
      .join(' · ')
    out.push(`## ${i + 1}. ${link(p.title || p.url, p.url)}\n\n${where}\n\n${p.text.trim()}`)
  })
  const sources = body.sources.map((s) => {
    const state = s.read
      ? `read${s.cached ? ' (cached)' : ''}, ${s.passages ?? 0} passage${s.passages === 1 ? '' : 's'}`
      : `not read: ${s.error ? `${s.error.code}: ${inline(s.error.message)}` : 'skipped'}`
    return `- result ${s.position}: ${link(s.title || s.url, s.url)} — ${state}`
  })
  if (sources.length > 0) out.push(`---\n\nSources:\n\n${sources.join('\n')}`)
  return out.join('\n\n')
}
