import type { Element } from 'domhandler'
import { HEADING_TAGS, isElement, isText } from './dom.utils.ts'

/**
 * A heading that is one link is a teaser for another page: inside an article it heads a
 * "related" block and is dropped. But when the content root holds many of them it is itself a
 * list of teasers (a homepage or section front), and the linked headlines are the content.
 */

/** This many link-only headings make the content root an index of stories. */
const INDEX_HEADINGS = 6

/** True when every bit of text under `el` sits inside a link. */
function onlyLinkText(el: Element, inLink: boolean): boolean {
  let any = false
  for (const c of el.children) {
    if (isText(c)) {
      if (c.data.trim() && !inLink) return false
    } else if (isElement(c)) {
      if (!onlyLinkText(c, inLink || c.name === 'a')) return false
    }
    any = true
  }
  return any
}

/** Whether `root` is a list of story teasers: many headings that are each a link. */
export function isTeaserIndex(root: Element): boolean {
  let count = 0
  const visit = (el: Element): boolean => {
    for (const c of el.children) {
      if (!isElement(c)) continue
      if (HEADING_TAGS.has(c.name)) {
        if (onlyLinkText(c, false) && ++count >= INDEX_HEADINGS) return true
      } else if (visit(c)) return true
    }
    return false
  }
  return visit(root)
}
