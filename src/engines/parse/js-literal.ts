/**
 * Reads a JavaScript value literal as data, without evaluating anything. Pages hand their client
 * apps the search results as JS, not JSON (SvelteKit's `kit.start(app, element, {...})` on Brave,
 * `React.createElement(UIStartpage.AppSerpWeb, {...})` on Startpage): unquoted keys, single
 * quotes, `void 0`, trailing commas. Whatever is not plain data (calls, `new Date(...)`, variables)
 * reads as undefined, so an odd field never loses the rest of the object.
 */

const MAX_DEPTH = 256

export class JsLiteralError extends Error {}

/** The value literal starting at `start` in `src` (leading whitespace skipped), and where it ends. */
export function readJsLiteral(src: string, start = 0): { value: unknown; end: number } {
  const r = new Reader(src, start)
  const value = r.value(0)
  return { value, end: r.i }
}

/**
 * The literal right after the first match of `marker` (a regex whose match ends where the value
 * starts), or undefined when the marker is absent or the literal is broken.
 */
export function readJsLiteralAfter(src: string, marker: RegExp): unknown {
  const m = marker.exec(src)
  if (!m) return undefined
  try {
    return readJsLiteral(src, m.index + m[0].length).value
  } catch (e) {
    if (e instanceof JsLiteralError) return undefined
    throw e
  }
}

const IDENT_START = /[A-Za-z_$\u00a0-\uffff]/
const IDENT_CHAR = /[\w$\u00a0-\uffff]/
const NUMBER = /[+-]?(?:0[xX][\da-fA-F_]+|0[bB][01_]+|0[oO][0-7_]+|(?:\d[\d_]*\.?[\d_]*|\.\d[\d_]*)(?:[eE][+-]?\d+)?)n?/y
const SIMPLE_ESCAPES: Record<string, string> = { n: '\n', r: '\r', t: '\t', b: '\b', f: '\f', v: '\v' }

class Reader {
  i: number

  constructor(
    private readonly s: string,
    start: number,
  ) {
    this.i = start
  }

  private fail(what: string): never {
    throw new JsLiteralError(`${what} at ${this.i}`)
  }

  /** Skips whitespace and comments. */
  private ws(): void {
    const s = this.s
    while (this.i < s.length) {
      const c = s.charCodeAt(this.i)
      if (c === 32 || c === 10 || c === 13 || c === 9 || c === 0xa0 || c === 0xfeff || c === 0x2028 || c === 0x2029) this.i++
      else if (c === 47 && s[this.i + 1] === '/') {
        const nl = s.indexOf('\n', this.i)
        this.i = nl === -1 ? s.length : nl + 1
      } else if (c === 47 && s[this.i + 1] === '*') {
        const end = s.indexOf('*/', this.i + 2)
        this.i = end === -1 ? s.length : end + 2
      } else break
    }
  }

  value(depth: number): unknown {
    if (depth > MAX_DEPTH) this.fail('nested too deeply')
    this.ws()
    const c = this.s[this.i]
    if (c === undefined) this.fail('unexpected end')
    if (c === '{') return this.object(depth)
    if (c === '[') return this.array(depth)
    if (c === '"' || c === "'" || c === '`') return this.string(c)
    if (c === '-' || c === '+') {
      const sign = c === '-' ? -1 : 1
      this.i++
      const v = this.value(depth + 1)
      return typeof v === 'number' ? sign * v : undefined
    }
    if ((c >= '0' && c <= '9') || c === '.') return this.number()
    if (c === '(') {
      this.skipExpression()
      return undefined
    }
    const word = this.ident()
    if (!word) this.fail(`unexpected ${JSON.stringify(c)}`)
    switch (word) {
      case 'true':
        return true
      case 'false':
        return false
      case 'null':
        return null
      case 'NaN':
        return Number.NaN
      case 'Infinity':
        return Number.POSITIVE_INFINITY
      case 'void':
        this.value(depth + 1)
        return undefined
      default:
        // `undefined`, a variable, `new Date(...)`, a call: not data.
        this.skipExpression()
        return undefined
    }
  }

  private object(depth: number): Record<string, unknown> {
    const out: Record<string, unknown> = {}
    this.i++ // {
    for (;;) {
      this.ws()
      const c = this.s[this.i]
      if (c === '}') {
        this.i++
        return out
      }
      if (c === ',') {
        this.i++
        continue
      }
      if (c === '.' && this.s.startsWith('...', this.i)) {
        this.i += 3
        this.skipExpression()
        continue
      }
      const key = c === '"' || c === "'" ? this.string(c) : c !== undefined && c >= '0' && c <= '9' ? String(this.number()) : this.ident()
      if (!key) this.fail('expected a key')
      this.ws()
      const sep = this.s[this.i]
      let v: unknown
      if (sep === ':') {
        this.i++
        v = this.value(depth + 1)
      } else if (sep !== ',' && sep !== '}') this.fail('expected ":"')
      // A data object never needs __proto__; setting it would change the object's prototype.
      if (key !== '__proto__') out[key] = v
    }
  }

  private array(depth: number): unknown[] {
    const out: unknown[] = []
    this.i++ // [
    let expectValue = true
    for (;;) {
      this.ws()
      const c = this.s[this.i]
      if (c === ']') {
        this.i++
        return out
      }
      if (c === ',') {
        if (expectValue) out.push(undefined) // a hole: [1,,2]
        expectValue = true
        this.i++
        continue
      }
      if (!expectValue) this.fail('expected ","')
      out.push(this.value(depth + 1))
      expectValue = false
    }
  }

  private string(quote: string): string {
    const s = this.s
    let out = ''
    this.i++
    for (;;) {
      const end = this.nextSpecial(quote)
      out += s.slice(this.i, end)
      this.i = end
      const c = s[this.i]
      if (c === undefined) this.fail('unterminated string')
      this.i++
      if (c === quote) return out
      out += this.escape()
    }
  }

  /** The index of the next closing quote or backslash. */
  private nextSpecial(quote: string): number {
    const q = this.s.indexOf(quote, this.i)
    const b = this.s.indexOf('\\', this.i)
    if (q === -1) return b === -1 ? this.s.length : b
    return b === -1 ? q : Math.min(q, b)
  }

  private escape(): string {
    const s = this.s
    const c = s[this.i]
    if (c === undefined) this.fail('unterminated string')
    this.i++
    if (c in SIMPLE_ESCAPES) return SIMPLE_ESCAPES[c] as string
    if (c === '0' && !/[0-9]/.test(s[this.i] ?? '')) return '\0'
    if (c === 'x') return this.hex(2)
    if (c === 'u') {
      if (s[this.i] !== '{') return this.hex(4)
      const close = s.indexOf('}', this.i)
      if (close === -1) this.fail('bad \\u{} escape')
      const cp = Number.parseInt(s.slice(this.i + 1, close), 16)
      this.i = close + 1
      if (!Number.isFinite(cp) || cp > 0x10ffff) this.fail('bad \\u{} escape')
      return String.fromCodePoint(cp)
    }
    if (c === '\r') {
      if (s[this.i] === '\n') this.i++
      return ''
    }
    if (c === '\n' || c === '\u2028' || c === '\u2029') return '' // line continuation
    return c
  }

  private hex(n: number): string {
    const h = this.s.slice(this.i, this.i + n)
    if (!new RegExp(`^[\\da-fA-F]{${n}}$`).test(h)) this.fail('bad hex escape')
    this.i += n
    return String.fromCharCode(Number.parseInt(h, 16))
  }

  private number(): number {
    NUMBER.lastIndex = this.i
    const m = NUMBER.exec(this.s)
    if (!m?.[0]) this.fail('bad number')
    this.i += m[0].length
    return Number(m[0].replace(/_/g, '').replace(/n$/, ''))
  }

  private ident(): string {
    const s = this.s
    const start = this.i
    if (!IDENT_START.test(s[this.i] ?? '')) return ''
    this.i++
    while (this.i < s.length && IDENT_CHAR.test(s[this.i] as string)) this.i++
    return s.slice(start, this.i)
  }

  /** Skips the rest of an expression that is not data, up to the `,` `}` `]` or `)` closing it. */
  private skipExpression(): void {
    const s = this.s
    let depth = 0
    while (this.i < s.length) {
      const c = s[this.i] as string
      if (c === '"' || c === "'" || c === '`') {
        this.string(c)
        continue
      }
      if (c === '(' || c === '[' || c === '{') depth++
      else if (c === ')' || c === ']' || c === '}') {
        if (depth === 0) return
        depth--
      } else if (c === ',' && depth === 0) return
      this.i++
    }
  }
}
