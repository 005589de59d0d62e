import type { Document } from 'domhandler'
import { Parser } from 'htmlparser2'
import { replayDom, type TagEvents } from './dom.utils.ts'

/**
 * `render=auto`: does a statically fetched page look like a JavaScript shell, whose content only
 * a browser would draw? Pure and cheap: read from the reader's own parse of the page (on its thread),
 * or by one streaming pass where there is none.
 * The rules and the pages they were checked on are in docs/rendering.md.
 */

export type RenderMode = 'auto' | 'always' | 'never'

export interface ShellSignals {
  /** Visible text outside <head>, and outside script, style, noscript and template, whitespace collapsed. */
  textChars: number
  /** Characters of inline <script> bodies (JSON data islands included). */
  inlineScriptChars: number
  /** <script src=...> elements. */
  externalScripts: number
  /** The first known application root found empty (`#root`, `#app`, `<app-root>`...), or null. */
  emptyAppRoot: string | null
  /** A <noscript> asks for JavaScript ("You need to enable JavaScript to run this app."). */
  noscriptNotice: boolean
}

export interface RenderDecision {
  render: boolean
  /** Which rule decided, for logs and tests. */
  reason: string
}

/** Ids frameworks mount into: create-react-app and Vite (root), Vue (app), Next, Nuxt, Gatsby, SvelteKit, Ember, Preact CLI. */
const APP_ROOT_IDS = new Set([
  'root',
  'app',
  '__next',
  '__nuxt',
  '___gatsby',
  'svelte',
  'ember-app',
  'preact_root',
  'react-root',
  'app-root',
  'main-app',
  'application',
])
/** Custom elements frameworks mount into (Angular CLI's `<app-root>`, Stencil and Lit app shells). */
const APP_ROOT_TAG = /^(app-root|[a-z][a-z0-9]*-(root|app|shell))$/
/** Text an app root may hold and still count as empty: a "Loading..." placeholder. */
const EMPTY_ROOT_CHARS = 40
const NOSCRIPT_NOTICE =
  /\b(enable|enabled|turn on|activate|requires?|need|without|support)\b[^.!]{0,60}\bjava\s?script\b|\bjava\s?script\b[^.!]{0,60}\b(enabled?|required|disabled|turned off|is off|must be)\b/i
const SKIP = new Set(['script', 'style', 'noscript', 'template'])

/** Above this much visible text the content is there: never rendered under auto. */
export const ENOUGH_TEXT = 2000
/** Below this much visible text a page with a JavaScript notice is a shell. */
const LITTLE_TEXT = 500
/** Inline script characters per visible character above which a page with little text is a shell. */
const SCRIPT_RATIO = 20

export function shellSignals(html: string): ShellSignals {
  const collector = shellCollector()
  const parser = new Parser(collector, { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true })
  parser.write(html)
  parser.end()
  return collector.finish()
}

/** The same signals from a page the reader has parsed already (before it prunes the tree): no second parse. */
export function shellSignalsOf(doc: Document): ShellSignals {
  const collector = shellCollector()
  replayDom(doc.children, collector)
  return collector.finish()
}

function shellCollector(): TagEvents & { finish(): ShellSignals } {
  const s: ShellSignals = { textChars: 0, inlineScriptChars: 0, externalScripts: 0, emptyAppRoot: null, noscriptNotice: false }
  let inHead = false
  let skipDepth = 0
  let inScript = false
  let noscriptText = ''
  let inNoscript = 0
  // Open app-root candidates: their depth and the text seen inside.
  const roots: { name: string; depth: number; chars: number }[] = []
  let depth = 0
  return {
    onopentag(name, attribs) {
      depth++
      if (name === 'head') inHead = true
      if (name === 'body') inHead = false
      if (name === 'script') {
        if (attribs.src) s.externalScripts++
        inScript = true
      }
      if (name === 'noscript') inNoscript++
      if (SKIP.has(name)) skipDepth++
      const id = attribs.id?.toLowerCase()
      if (s.emptyAppRoot === null && ((id && APP_ROOT_IDS.has(id)) || APP_ROOT_TAG.test(name) || 'ng-app' in attribs || 'data-reactroot' in attribs)) {
        roots.push({ name: id ? `#${id}` : `<${name}>`, depth, chars: 0 })
      }
    },
    ontext(text) {
      if (inScript) {
        s.inlineScriptChars += text.length
        return
      }
      if (inNoscript > 0) {
        noscriptText += text
        return
      }
      if (skipDepth > 0) return
      const n = text.replace(/\s+/g, ' ').trim().length
      if (n === 0) return
      if (!inHead) s.textChars += n
      for (const r of roots) r.chars += n
    },
    onclosetag(name) {
      if (name === 'script') inScript = false
      if (name === 'head') inHead = false
      if (name === 'noscript') inNoscript = Math.max(0, inNoscript - 1)
      if (SKIP.has(name)) skipDepth = Math.max(0, skipDepth - 1)
      const top = roots.at(-1)
      if (top && top.depth === depth) {
        roots.pop()
        if (top.chars <= EMPTY_ROOT_CHARS && s.emptyAppRoot === null) s.emptyAppRoot = top.name
      }
      depth--
    },
    finish() {
      s.noscriptNotice = NOSCRIPT_NOTICE.test(noscriptText)
      return s
    },
  }
}

/**
 * `always` and `never` decide alone. `auto` renders an HTML page when its static read shows a
 * shell, checked in this order:
 * 1. plenty of visible text (ENOUGH_TEXT): the content is there, no render;
 * 2. no script at all and no empty app root: a browser would draw nothing more, no render;
 * 3. an empty application root (`<div id="root"></div>`, `<app-root></app-root>`);
 * 4. a noscript "enable JavaScript" notice on a page with little text;
 * 5. the static read found no readable content and the page has scripts;
 * 6. little text under a mass of inline script (data islands a bundle turns into the page).
 */
export function decideRender(
  mode: RenderMode,
  page: { html: string | undefined; isHtml: boolean; emptyRead: boolean; signals?: ShellSignals },
): RenderDecision {
  if (mode === 'never') return { render: false, reason: 'render=never' }
  if (mode === 'always') return { render: true, reason: 'render=always' }
  if (!page.isHtml || page.html === undefined) return { render: false, reason: 'not an HTML page' }
  return judgeSignals(page.signals ?? shellSignals(page.html), page.emptyRead)
}

export function judgeSignals(s: ShellSignals, emptyRead: boolean): RenderDecision {
  const scripts = s.externalScripts > 0 || s.inlineScriptChars > 200
  if (s.textChars >= ENOUGH_TEXT) return { render: false, reason: `${s.textChars} characters of text` }
  if (!scripts && !s.emptyAppRoot) return { render: false, reason: 'no scripts' }
  if (s.emptyAppRoot) return { render: true, reason: `empty application root ${s.emptyAppRoot}` }
  if (s.noscriptNotice && s.textChars < LITTLE_TEXT) return { render: true, reason: 'noscript JavaScript notice' }
  if (emptyRead) return { render: true, reason: 'no readable content' }
  if (s.textChars < LITTLE_TEXT * 2 && s.inlineScriptChars > SCRIPT_RATIO * Math.max(s.textChars, 1)) {
    return { render: true, reason: `inline script ${s.inlineScriptChars} characters for ${s.textChars} of text` }
  }
  return { render: false, reason: 'static content' }
}
