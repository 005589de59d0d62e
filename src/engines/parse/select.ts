/**
 * CSS selectors over a page's element index (dom-index.ts), compiled once per selector string.
 * cheerio parses and compiles a selector on every `.find()`/`.closest()` and walks the subtree
 * each time; a Google page is searched a few hundred times, which cost more than building the
 * tree. The subset is what the result parsers use: type, `#id`, `.class`, `[attr]`, `[attr="v"]`,
 * `[attr^="v"]`, `[attr*="v"]`, compounds of those, the descendant combinator and `,` lists, with
 * css-select's HTML-mode semantics (exact attribute values, whitespace-separated classes). Any
 * other syntax throws, so a selector outside the subset fails loudly in the parser tests.
 */
import type { CheerioAPI } from 'cheerio'
import type { AnyNode, Element } from 'domhandler'
import { type DomIndex, documentOf, domIndex } from './dom-index.ts'

type Test = (el: Element) => boolean

/** One complex selector: compounds from the outermost ancestor to the subject. */
interface Complex {
  tests: Test[]
  /** What the subject must have, to draw its candidates from the index: a tag name, else an attribute name. */
  tag?: string
  attr?: string
}

const compiled = new Map<string, Complex[]>()

function compile(selector: string): Complex[] {
  let out = compiled.get(selector)
  if (!out) {
    out = selector.split(',').map((part) => {
      const compounds = part.trim().split(/\s+/)
      if (!compounds[0]) throw new Error(`unsupported selector: ${selector}`)
      const parsed = compounds.map((c) => compound(c, selector))
      const subject = parsed.at(-1) as Compound
      return { tests: parsed.map((c) => c.test), tag: subject.tag, attr: subject.attr }
    })
    compiled.set(selector, out)
  }
  return out
}

const COMPOUND_PART = /^(?:([a-z][a-z0-9-]*)|#([\w-]+)|\.([\w-]+)|\[([\w-]+)(?:([\^*]?)="([^"]*)")?\])/i
const CLASS_SPLIT = /\s/

interface Compound {
  test: Test
  tag?: string
  attr?: string
}

function compound(text: string, selector: string): Compound {
  const tests: Test[] = []
  let tagName: string | undefined
  let attrName: string | undefined
  let rest = text
  while (rest) {
    const m = COMPOUND_PART.exec(rest)
    if (!m || (m[1] && rest !== text)) throw new Error(`unsupported selector: ${selector}`)
    rest = rest.slice(m[0].length)
    const [, tag, id, cls, attr, op, value] = m
    if (tag) {
      const name = tag.toLowerCase()
      tagName = name
      tests.push((el) => el.name === name)
    } else if (id) {
      attrName ??= 'id'
      tests.push((el) => el.attribs.id === id)
    } else if (cls) {
      attrName ??= 'class'
      tests.push((el) => {
        const v = el.attribs.class
        return v !== undefined && (v === cls || (v.includes(cls) && v.split(CLASS_SPLIT).includes(cls)))
      })
    } else if (attr && value === undefined) {
      attrName ??= attr
      tests.push((el) => el.attribs[attr] !== undefined)
    } else if (attr && value !== undefined) {
      attrName ??= attr
      // css-select: `^=` and `*=` with an empty value match nothing.
      if (op === '^') tests.push((el) => value !== '' && (el.attribs[attr]?.startsWith(value) ?? false))
      else if (op === '*') tests.push((el) => value !== '' && (el.attribs[attr]?.includes(value) ?? false))
      else tests.push((el) => el.attribs[attr] === value)
    }
  }
  const test = tests.length === 1 ? (tests[0] as Test) : (el: Element) => tests.every((t) => t(el))
  return { test, tag: tagName, attr: attrName }
}

const isTag = (n: AnyNode | null): n is Element => !!n && (n.type === 'tag' || n.type === 'script' || n.type === 'style')

/** `el` matches `complex`, its ancestors matched strictly inside `scope` (cheerio scopes `.find()` so). */
function matchComplex(el: Element, { tests: complex }: Complex, scope: AnyNode | undefined): boolean {
  let i = complex.length - 1
  if (!(complex[i] as Test)(el)) return false
  let cur = el.parent
  // A descendant chain matches with the nearest ancestor for each compound: no backtracking needed.
  while (--i >= 0) {
    const test = complex[i] as Test
    while (cur && cur !== scope && isTag(cur) && !test(cur)) cur = cur.parent
    if (!cur || cur === scope || !isTag(cur)) return false
    cur = cur.parent
  }
  return true
}

/** `el` matches `selector` (ancestors anywhere above it). */
export function matches(el: Element, selector: string, scope?: AnyNode): boolean {
  return compile(selector).some((complex) => matchComplex(el, complex, scope))
}

/** Elements inside `scope` matching `selector`, in document order: `$(scope).find(selector).toArray()`. */
export function selectAll($: CheerioAPI, scope: AnyNode, selector: string): Element[] {
  return select(domIndex(documentOf($)), scope, selector, false)
}

/** The first element inside `scope` matching `selector`: `$(scope).find(selector)[0]`. */
export function selectOne($: CheerioAPI, scope: AnyNode, selector: string): Element | undefined {
  return select(domIndex(documentOf($)), scope, selector, true)[0]
}

/**
 * Candidates come from the index (the elements with the subject's tag, or with one of its
 * attributes), cut to the scope's range by binary search, so a query costs what it can match
 * rather than the size of the scope.
 */
function select(index: DomIndex, scope: AnyNode, selector: string, firstOnly: boolean): Element[] {
  const list = compile(selector)
  const range = index.range(scope)
  // cheerio anchors a `.find()` selector's ancestors inside the scope when the scope has a parent element.
  const within = isTag(scope.parent) ? scope : undefined
  if (!range) return index.findAll(scope, (el) => list.some((c) => matchComplex(el, c, within))).slice(0, firstOnly ? 1 : undefined)
  const found: number[] = []
  for (const complex of list) {
    const positions = complex.tag ? index.positionsOfTag(complex.tag) : complex.attr ? index.positionsWithAttribute(complex.attr) : undefined
    if (!positions) {
      for (let i = range[0]; i <= range[1]; i++) {
        if (matchComplex(index.elements[i] as Element, complex, within)) {
          found.push(i)
          if (firstOnly) break
        }
      }
      continue
    }
    for (let k = lowerBound(positions, range[0]); k < positions.length; k++) {
      const at = positions[k] as number
      if (at > range[1]) break
      if (matchComplex(index.elements[at] as Element, complex, within)) {
        found.push(at)
        if (firstOnly) break
      }
    }
  }
  if (list.length > 1) {
    found.sort((a, b) => a - b)
    if (firstOnly) found.length = Math.min(found.length, 1)
  }
  const out: Element[] = []
  for (let k = 0; k < found.length; k++) if (k === 0 || found[k] !== found[k - 1]) out.push(index.elements[found[k] as number] as Element)
  return out
}

/** First index in the ascending `xs` whose value is at least `x`. */
function lowerBound(xs: readonly number[], x: number): number {
  let lo = 0
  let hi = xs.length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if ((xs[mid] as number) < x) lo = mid + 1
    else hi = mid
  }
  return lo
}

/** `el` or its nearest ancestor matching `selector`: `$(el).closest(selector)[0]`. */
export function closestMatch(el: AnyNode | null | undefined, selector: string): Element | undefined {
  const list = compile(selector)
  for (let cur = el; isTag(cur ?? null); cur = (cur as Element).parent) {
    if (list.some((c) => matchComplex(cur as Element, c, undefined))) return cur as Element
  }
  return undefined
}
