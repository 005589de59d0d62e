import type { Element } from 'domhandler'
import type { ContentPick } from './content.extract.ts'
import { HEADING_TAGS, isElement, isText, textOf } from './dom.utils.ts'

/**
 * The content root sometimes wraps the article together with blocks that follow it: a second
 * article or a news timeline in a sibling wrapper, a "We want to hear from you" or "Ready to get
 * started?" call to action. Descending from the root into the child that holds most of the prose,
 * a block that comes after that child, opens with its own heading and shares no word with the
 * title is about something else, unless it is built like that child (one article split into
 * blocks by its template).
 */

/** Share of its parent's prose the article's own container holds. */
const CORE_SHARE = 0.7
/** A side block holds at most this share of the root's prose. */
const SIDE_SHARE = 0.25

// Function words that two unrelated headings share ("hear from you", "findings from our survey").
const FUNCTION_WORDS = new Set(
  'the and for from with that this these those our your you are was were what when where which who why how will into about has have not but all its their'.split(
    ' ',
  ),
)

const words = (s: string) =>
  s
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((w) => w.length >= 3 && !FUNCTION_WORDS.has(w))

export function trailingSideBlocks(pick: ContentPick, title: string | null): Element[] {
  const { root, stats } = pick
  const rootGood = stats.get(root)?.good ?? 0
  if (!title || rootGood === 0) return []
  const titleWords = new Set(words(title))
  const firstHeading = firstBlockHeading(root)
  if (firstHeading) for (const w of words(textOf(firstHeading))) titleWords.add(w)
  if (titleWords.size === 0) return []
  const side: Element[] = []
  let cur = root
  for (;;) {
    const curGood = stats.get(cur)?.good ?? 0
    let core: Element | null = null
    for (const c of cur.children) if (isElement(c) && (stats.get(c)?.good ?? 0) >= CORE_SHARE * curGood) core = c
    if (!core || curGood === 0) break
    for (let n = core.next; n; n = n.next) {
      if (!isElement(n)) continue
      const s = stats.get(n)
      if (!s || s.text === 0 || s.good > SIDE_SHARE * rootGood || sameKind(n, core)) continue
      const heading = firstBlockHeading(n)
      if (heading && !words(textOf(heading)).some((w) => titleWords.has(w))) side.push(n)
    }
    cur = core
  }
  return side
}

/** Templates that split one article into blocks give every block the same tag and class. */
const sameKind = (a: Element, b: Element) => a.name === b.name && (a.attribs.class ?? '') === (b.attribs.class ?? '')

/** The heading `el` opens with, if no text comes before it. */
export function firstBlockHeading(el: Element): Element | null {
  for (const c of el.children) {
    if (isText(c)) {
      if (c.data.trim()) return null
    } else if (isElement(c)) {
      if (HEADING_TAGS.has(c.name)) return textOf(c).trim() ? c : null
      if (!textOf(c).trim()) continue
      return firstBlockHeading(c)
    }
  }
  return null
}
