/**
 * Fast HTML loading for result pages. A Google page is 0.3-2 MB, of which most is inline
 * <script> and <style>: no reader looks inside them, yet a tree builder spends most of its time
 * scanning them. `dropRawText` empties them with native string searches before the tree is built.
 */
import type * as cheerio from 'cheerio'
import { buildDocument } from '../../text/html-tree.ts'
import { loadCheerio } from './cheerio-load.ts'

enum C {
  Tab = 9,
  NewLine = 10,
  FormFeed = 12,
  CarriageReturn = 13,
  Space = 32,
  DoubleQuote = 34,
  SingleQuote = 39,
  Dash = 45,
  Slash = 47,
  Eq = 61,
  Gt = 62,
  Question = 63,
  Bang = 33,
  OpenBracket = 91,
}

const isWhitespace = (c: number) => c === C.Space || c === C.NewLine || c === C.Tab || c === C.FormFeed || c === C.CarriageReturn
const isEndOfTagSection = (c: number) => c === C.Slash || c === C.Gt || isWhitespace(c)
const isAsciiAlpha = (c: number) => (c >= 97 && c <= 122) || (c >= 65 && c <= 90)

// htmlparser2's raw-text elements: their content is text up to the matching end tag.
const RAW_TEXT = new Set(['script', 'style', 'title', 'textarea', 'xmp'])
const DROPPED = new Set(['script', 'style'])

/**
 * `html` with the content of every <script> and <style> element removed (the tags stay). Tag,
 * comment and raw-text boundaries are found exactly as htmlparser2's tokenizer finds them (its
 * states are mirrored here), so the tree built from the result equals the tree built from `html`
 * with those elements' text emptied. Text, attributes and every other element are untouched,
 * unless `opts` asks for attribute cuts.
 */
export function dropRawText(html: string, opts: DropOptions = {}): string {
  const parts: string[] = []
  // Stretches of the current tag's attributes to leave out (see DropOptions), when asked for.
  const trim: Trim | undefined =
    opts.cutDataUris || opts.dropAttributes ? { ...opts, cuts: [], count: 0, namesByLength: byLength(opts.dropAttributes) } : undefined
  let kept = 0 // start of the next part to copy
  // Inside an <svg> whose content is dropped: how deep (they nest), and where the outermost one's content starts.
  let svgDepth = 0
  let svgContent = 0
  let i = 0
  const n = html.length
  while (i < n) {
    const lt = html.indexOf('<', i)
    if (lt < 0 || lt + 1 >= n) break
    const c = html.charCodeAt(lt + 1)
    if (c === C.Bang) {
      i = endOfDeclaration(html, lt)
    } else if (c === C.Question || c === C.Slash) {
      // Processing instructions and end tags (whatever follows `</`) end at the next `>`.
      i = after(html, html.indexOf('>', lt + 2))
      if (svgDepth > 0 && c === C.Slash && isSvgAt(html, lt + 2) && --svgDepth === 0) {
        parts.push(html.slice(kept, svgContent))
        kept = lt
      }
    } else if (isAsciiAlpha(c)) {
      let j = lt + 2
      while (j < n && !isEndOfTagSection(html.charCodeAt(j))) j++
      const name = rawTextName(html, lt + 1, j)
      // Inside a dropped <svg> nothing is cut piecemeal: all of it goes at its end tag.
      const end = endOfOpenTag(html, j, svgDepth > 0 ? undefined : trim)
      if (end < 0) break
      if (opts.dropSvg && (end & 1) === 0 && j - lt === 4 && isSvgAt(html, lt + 1) && svgDepth++ === 0) svgContent = (end >> 1) + 1
      if (trim?.count) {
        for (let k = 0; k < trim.count; k += 2) {
          parts.push(html.slice(kept, trim.cuts[k]))
          kept = trim.cuts[k + 1] as number
        }
        trim.count = 0
      }
      i = (end >> 1) + 1
      if (name && (end & 1) === 0) {
        const close = endTagAt(html, name, i)
        if (close < 0) break // unterminated: the rest of the document is its text
        if (DROPPED.has(name) && close > i && svgDepth === 0) {
          parts.push(html.slice(kept, i))
          kept = close
        }
        i = close
      }
    } else {
      i = lt + 1 // a `<` that starts no tag is text
    }
  }
  if (kept === 0) return html
  parts.push(html.slice(kept))
  return parts.join('')
}

export interface DropOptions {
  /**
   * Also cut the payload of long quoted `data:` attribute values (inline base64 images), keeping
   * `data:<type>,`: they are a third of some pages' markup and the tokenizer scans them char by
   * char, yet readers only take http(s) image URLs. The tree then differs in those values only.
   */
  cutDataUris?: boolean
  /**
   * Lower-case names of attributes no reader of the page uses, left out with their quoted values
   * (only where whitespace precedes the name, so the rest of the tag tokenizes as before): less
   * markup to tokenize and fewer strings to collect.
   */
  dropAttributes?: ReadonlySet<string>
  /**
   * Also empty every inline <svg> (keeping the element): icons' paths and groups are a tenth of a
   * result page's elements, and no reader looks inside them. The tree then lacks their children.
   */
  dropSvg?: boolean
}

/** DropOptions plus the start and end pairs of the current tag's stretches to cut, in order. */
interface Trim extends DropOptions {
  cuts: number[]
  /** How many entries of `cuts` are the current tag's (the array is reused: emptying it would free its store every tag). */
  count: number
  /** `dropAttributes` by name length: an attribute is compared only with the names of its length. */
  namesByLength: string[][]
}

/** The names grouped by length, in plain arrays: iterating a Set for every attribute allocated an iterator each time. */
function byLength(names: ReadonlySet<string> | undefined): string[][] {
  const out: string[][] = []
  for (const name of names ?? []) {
    const list = out[name.length]
    if (list) list.push(name)
    else out[name.length] = [name]
  }
  return out
}

// Shorter data URIs are not worth a cut.
const MIN_DATA_URI = 256

function cut(trim: Trim, start: number, end: number): void {
  trim.cuts[trim.count++] = start
  trim.cuts[trim.count++] = end
}

/** Records the cut, if any, of one attribute: name at [start, end), quoted value from `open` to `close`. */
function trimAttribute(html: string, trim: Trim, start: number, end: number, open: number, close: number): void {
  const names = trim.namesByLength[end - start]
  if (names && isWhitespace(html.charCodeAt(start - 1))) {
    // Compared in place (no string per attribute); a name in other case is just kept, which is safe.
    for (let k = 0; k < names.length; k++) {
      if (html.startsWith(names[k] as string, start)) {
        cut(trim, start, close + 1)
        return
      }
    }
  }
  if (trim.cutDataUris && close - open > MIN_DATA_URI && html.startsWith('data:', open + 1)) {
    const comma = html.indexOf(',', open + 6)
    if (comma > 0 && comma < close) cut(trim, comma + 1, close)
  }
}

const RAW_TEXT_NAMES = [...RAW_TEXT]

/**
 * The raw-text element named by `html` from `start` to `end` (any case), or ''. Compared in place,
 * as the tokenizer does (`c | 0x20`): a lower-cased slice per tag was a string for every <div>.
 */
function rawTextName(html: string, start: number, end: number): string {
  for (let k = 0; k < RAW_TEXT_NAMES.length; k++) {
    const name = RAW_TEXT_NAMES[k] as string
    if (name.length === end - start && sameName(html, start, name)) return name
  }
  return ''
}

/**
 * Position of the first `</name` (any case) followed by whitespace or `>` from `from` on, where
 * the tokenizer ends a raw-text element; -1 when there is none. A native search for `</` and a
 * compare in place: the case-insensitive regex it replaces was a good part of the pass on pages
 * with a megabyte of inline script.
 */
function endTagAt(html: string, name: string, from: number): number {
  for (let at = html.indexOf('</', from); at >= 0; at = html.indexOf('</', at + 2)) {
    if (sameName(html, at + 2, name) && isEndTagEnd(html.charCodeAt(at + 2 + name.length))) return at
  }
  return -1
}

// `</script` must be followed by one of `\t\n\f\r >` (a `/` or the end of the document does not end the element).
const isEndTagEnd = (c: number) => c === C.Space || c === C.Gt || c === C.Tab || c === C.NewLine || c === C.FormFeed || c === C.CarriageReturn

/** `html` at `at` spells the lower-case ASCII `name` in any case. */
function sameName(html: string, at: number, name: string): boolean {
  let i = 0
  while (i < name.length && (html.charCodeAt(at + i) | 0x20) === name.charCodeAt(i)) i++
  return i === name.length
}

/** `html` at `at` names an svg element: `svg` in any case, then the end of the name. */
const isSvgAt = (html: string, at: number) => sameName(html, at, 'svg') && isEndOfTagSection(html.charCodeAt(at + 3))

/** Position after `at`, or -1 (the document ends inside the construct) when `at` is -1. */
const after = (html: string, at: number) => (at < 0 ? html.length : at + 1)

/** `<!…`: a comment (`<!--` … `-->`, also `<!-->` and `<!--->`), CDATA, or a declaration up to `>`. */
function endOfDeclaration(html: string, lt: number): number {
  if (html.startsWith('--', lt + 2)) {
    const c = html.charCodeAt(lt + 4)
    if (c === C.Gt) return lt + 5
    if (c === C.Dash && html.charCodeAt(lt + 5) === C.Gt) return lt + 6
    const end = html.indexOf('-->', lt + 4)
    return end < 0 ? html.length : end + 3
  }
  if (html.charCodeAt(lt + 2) === C.OpenBracket && html.startsWith('CDATA[', lt + 3)) {
    const end = html.indexOf(']]>', lt + 9)
    return end < 0 ? html.length : end + 3
  }
  return after(html, html.indexOf('>', lt + 2))
}

enum S {
  Before,
  SelfClosing,
  Name,
  AfterName,
  BeforeValue,
  Unquoted,
}

/**
 * The `>` closing an open tag whose name ends at `from`, following the tokenizer's attribute
 * states (a `>` inside a quoted value does not end the tag): its position times two, plus one
 * when the tag is self-closing (`/>`); -1 when the document ends first.
 */
function endOfOpenTag(html: string, from: number, trim?: Trim): number {
  const n = html.length
  let state = S.Before
  let nameStart = 0 // of the current attribute, for `trim`
  let nameEnd = 0
  for (let i = from; i < n; i++) {
    const c = html.charCodeAt(i)
    switch (state) {
      case S.Before:
        if (c === C.Gt) return i * 2
        if (c === C.Slash) state = S.SelfClosing
        else if (!isWhitespace(c)) {
          state = S.Name
          nameStart = i
        }
        break
      case S.SelfClosing:
        if (c === C.Gt) return i * 2 + 1
        if (!isWhitespace(c)) {
          state = S.Before
          i--
        }
        break
      case S.Name:
        if (c === C.Eq || isEndOfTagSection(c)) {
          state = S.AfterName
          nameEnd = i
          i--
        }
        break
      case S.AfterName:
        if (c === C.Eq) state = S.BeforeValue
        else if (c === C.Slash || c === C.Gt) {
          state = S.Before
          i--
        } else if (!isWhitespace(c)) {
          state = S.Name
          nameStart = i
        }
        break
      case S.BeforeValue:
        if (c === C.DoubleQuote || c === C.SingleQuote) {
          const close = html.indexOf(c === C.DoubleQuote ? '"' : "'", i + 1)
          if (close < 0) return -1
          if (trim) trimAttribute(html, trim, nameStart, nameEnd, i, close)
          i = close
          state = S.Before
        } else if (!isWhitespace(c)) {
          state = S.Unquoted
          i--
        }
        break
      case S.Unquoted:
        if (isWhitespace(c) || c === C.Gt) {
          state = S.Before
          i--
        }
        break
    }
  }
  return -1
}

/**
 * A cheerio document over htmlparser2's tree (several times faster to build than parse5's, and
 * the tree the parsers were written against), with script and style content left out. The tree
 * is built by text/html-tree.ts: the same tree as htmlparser2's `parseDocument`, built faster.
 */
export function loadPage(html: string, opts: DropOptions = {}): cheerio.CheerioAPI {
  // cheerio takes a built document as it is (what cheerio.load(string) would build, with these options).
  return loadCheerio(buildDocument(dropRawText(html, opts)), LOAD_OPTIONS)
}

const LOAD_OPTIONS = { xml: { xmlMode: false, decodeEntities: true } }
