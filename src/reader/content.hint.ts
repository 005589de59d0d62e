import type { Element } from 'domhandler'
import { BLOCK_TAGS, HEADING_TAGS, isElement, removeNodes, textOf } from './dom.utils.ts'

/**
 * Uses the page's JSON-LD `articleBody` (the publisher's own statement of the article text) to
 * trim the extracted content. Only trusted when our content root already covers nearly all of it:
 * many sites publish a truncated teaser there, and a teaser says nothing about what else belongs.
 * Then a paragraph inside the root that shares almost nothing with it is something the template
 * added between paragraphs: teasers for other stories, newsletter pitches, author blurbs.
 */

const MIN_COVER = 0.9
const MIN_SIZE = 0.5
const MIN_WORDS = 6
const MAX_SHARED = 0.2
const LEAF_BLOCKS = new Set(['p', 'li', 'blockquote', 'div', 'dd', 'figcaption'])

const words = (s: string) => s.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []

/** Word trigrams: order-aware enough to tell a paragraph from one that merely shares vocabulary. */
function trigrams(w: string[]): string[] {
  const out: string[] = []
  for (let i = 0; i + 3 <= w.length; i++) out.push(`${w[i]} ${w[i + 1]} ${w[i + 2]}`)
  return out
}

function shared(grams: string[], body: Set<string>): number {
  if (grams.length === 0) return 0
  let hit = 0
  for (const g of grams) if (body.has(g)) hit++
  return hit / grams.length
}

/** A block holding only inline content: the unit a publisher's articleBody is written in. */
function isLeafBlock(el: Element): boolean {
  if (!LEAF_BLOCKS.has(el.name)) return false
  for (const c of el.children) if (isElement(c) && BLOCK_TAGS.has(c.name)) return false
  return true
}

/** Removes paragraphs of `root` that are not in `articleBody`; returns how many it removed. */
export function trimToArticleBody(root: Element, articleBody: string): number {
  const body = new Set(trigrams(words(articleBody)))
  if (body.size < 20) return 0
  const ours = new Set(trigrams(words(textOf(root))))
  let covered = 0
  for (const g of body) if (ours.has(g)) covered++
  // A body much shorter than our text is a teaser or summary even when we contain all of it.
  if (covered / body.size < MIN_COVER || body.size < MIN_SIZE * ours.size) return 0
  const doomed: Element[] = []
  const visit = (el: Element) => {
    for (const c of el.children) {
      if (!isElement(c) || HEADING_TAGS.has(c.name)) continue
      if (!isLeafBlock(c)) {
        visit(c)
        continue
      }
      const w = words(textOf(c))
      if (w.length >= MIN_WORDS && shared(trigrams(w), body) < MAX_SHARED) doomed.push(c)
    }
  }
  visit(root)
  removeNodes(doomed)
  return doomed.length
}
