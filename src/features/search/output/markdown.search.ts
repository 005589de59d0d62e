/**
 * format=markdown for /v1/search. Reading order: the direct answer first (answer box, knowledge graph), then the
 * organic results, then the page's other blocks, then ads, last and labelled, so neither a person nor a model
 * mistakes a paid listing for a result.
 */

import { domainOf, inline, items, joinParts, link, numberedItem, object, paragraph, plain, position, section } from '../../../text/markdown.text.ts'
import { nestUnder } from '../../../text/markdown-outline.ts'
import { renderPlaceList } from './markdown.verticals.ts'
import type { JsonObject } from './output.types.ts'

/** The Markdown blocks of a search body, in reading order, without heading and footer. */
export function renderSearchBlocks(body: JsonObject): string[] {
  const results = items(body.results)
  return [
    answerBox(object(body.answer_box)),
    knowledgeGraph(object(body.knowledge_graph)),
    results.length > 0 ? section('Results', organicList(results)) : '',
    ...pageContents(results),
    peopleAlsoAsk(items(body.people_also_ask)),
    topStories(items(body.top_stories)),
    localPack(items(body.places)),
    relatedSearches(items(body.related_searches)),
    sponsored(items(body.ads)),
  ].filter((block) => block !== '')
}

function answerBox(box: JsonObject | undefined): string {
  if (!box) return ''
  const answer = paragraph(box.answer)
  const snippet = paragraph(box.snippet)
  if (!answer && !snippet) return ''
  const source = sourceLine(box.title, box.link, box.domain)
  return section('Answer', [answer, snippet, source].filter(Boolean).join('\n\n'))
}

function sourceLine(title: unknown, url: unknown, domain: unknown): string {
  if (!plain(url)) return ''
  const name = plain(domain) || domainOf(url)
  const label = link(plain(title) || name, url)
  return `Source: ${joinParts([label, plain(title) ? inline(name) : ''], ' — ')}`
}

function knowledgeGraph(graph: JsonObject | undefined): string {
  const title = inline(graph?.title)
  if (!graph || !title) return ''
  const type = inline(graph.type)
  const source = object(graph.source)
  const description = paragraph(graph.description)
  const facts: string[] = []
  for (const [name, value] of Object.entries(object(graph.attributes) ?? {})) {
    const text = inline(value)
    const label = name.replace(/_/g, ' ') // attribute keys are snake_case on the wire: first_patented
    if (text) facts.push(`- **${inline(label.charAt(0).toUpperCase() + label.slice(1))}:** ${text}`)
  }
  const website = plain(graph.website)
  if (website) facts.push(`- **Website:** ${link(domainOf(website), website)}`)
  const blocks = [type ? `*${type}*` : '', description && source ? `${description} (${link(source.name, source.link)})` : description, facts.join('\n')]
  return `## Knowledge graph: ${title}\n\n${blocks.filter(Boolean).join('\n\n')}`.trimEnd()
}

function organicList(results: readonly JsonObject[]): string {
  return results
    .map((result, index) => {
      const first = joinParts([link(result.title, result.link), joinParts([inline(result.domain || domainOf(result.link)), inline(result.date)])], ' — ')
      const sitelinks = items(result.sitelinks)
        .map((sitelink) => link(sitelink.title, sitelink.link))
        .filter(Boolean)
      return numberedItem(position(result, index), first, [paragraph(result.snippet), sitelinks.length > 0 ? `Sitelinks: ${sitelinks.join(' · ')}` : ''])
    })
    .join('\n\n')
}

/**
 * `include_content`: each read page under a heading of its own, after the list (its Markdown is a
 * document of its own, too long to sit inside a list item); a page that could not be read says why.
 */
function pageContents(results: readonly JsonObject[]): string[] {
  return results.flatMap((result, index) => {
    const error = object(result.content_error)
    if (typeof result.content !== 'string' && !error) return []
    const heading = `## Content of result ${position(result, index)}: ${link(result.content_title || result.title, result.link)}`
    if (error) return [`${heading}\n\nNot read: ${inline(error.message)}`]
    // The page's own headings go below this one; its title heading, which this one repeats, goes.
    const content = nestUnder(String(result.content).trim(), 2, plain(result.content_title) || plain(result.title))
    return [`${heading}\n\n${content.trim()}`.trimEnd()]
  })
}

function peopleAlsoAsk(questions: readonly JsonObject[]): string {
  const lines = questions
    .filter((entry) => plain(entry.question))
    .map((entry) => {
      const source = plain(entry.link) ? `(${link(domainOf(entry.link), entry.link)})` : ''
      return `- ${joinParts([`**${inline(entry.question)}**`, inline(entry.snippet), source], ' ')}`
    })
  return section('People also ask', lines.join('\n'))
}

function topStories(stories: readonly JsonObject[]): string {
  const lines = stories
    .filter((story) => plain(story.title))
    .map((story) => `- ${joinParts([link(story.title, story.link), joinParts([inline(story.source), inline(story.date)])], ' — ')}`)
  return section('Top stories', lines.join('\n'))
}

function localPack(places: readonly JsonObject[]): string {
  return section('Places', renderPlaceList(places))
}

function relatedSearches(searches: readonly JsonObject[]): string {
  const lines = searches.map((entry) => inline(entry.query)).filter(Boolean)
  return section('Related searches', lines.map((query) => `- ${query}`).join('\n'))
}

function sponsored(ads: readonly JsonObject[]): string {
  const lines = ads
    .filter((ad) => plain(ad.title))
    .map((ad) => {
      const headline = joinParts([link(ad.title, ad.link), inline(ad.domain || domainOf(ad.link))], ' — ')
      const snippet = inline(ad.snippet)
      return `- Sponsored · ${headline}${snippet ? `: ${snippet}` : ''}`
    })
  return section('Sponsored', lines.join('\n'))
}
