/**
 * One canonical percent-encoding for both sides of a robots.txt match (RFC 9309 §2.2.2): rule
 * patterns and request paths go through the same function, so `/%7Ejoe` matches `/~joe`, `/ツ`
 * matches `/%E3%83%84` and `%aa` matches `%AA`.
 *
 * The URL side has already been through WHATWG URL, which leaves `| [ ] ^` and unreserved escapes
 * such as %7E alone and escapes `'` in queries only; patterns arrive as the site wrote them. One
 * function for both sides makes them agree.
 *
 * Canonical form:
 *  - %XX of an unreserved character (A-Z a-z 0-9 - . _ ~) is decoded, as §2.2.2 requires;
 *  - any other %XX is kept, upper-cased (reserved characters stay distinct from their escapes);
 *  - unreserved characters, the sub-delims other than `'`, and `: @ / ?` stay literal;
 *  - everything else (non-ASCII as UTF-8, controls, space, `" < > \ ^ ` { | } [ ] '`, a `%`
 *    without two hex digits) is percent-encoded.
 * `'` is encoded although it is a sub-delim because WHATWG URL escapes it in query strings but not
 * in paths, so `'` and `%27` must be one form. `*` and `$` stay literal: they are the pattern
 * operators, and a literal one in a URL is matched as itself.
 */
const LITERAL = /[A-Za-z0-9\-._~!$&()*+,;=:@/?]/
const UNRESERVED = /[A-Za-z0-9\-._~]/
const HEX = /^[0-9A-Fa-f]{2}$/
const encoder = new TextEncoder()

export function canonicalPercentEncoding(input: string, opts: { keepNonAscii?: boolean } = {}): string {
  let out = ''
  for (let i = 0; i < input.length; i++) {
    const c = input[i]!
    if (c === '%' && HEX.test(input.slice(i + 1, i + 3))) {
      const decoded = String.fromCharCode(Number.parseInt(input.slice(i + 1, i + 3), 16))
      out += UNRESERVED.test(decoded) ? decoded : input.slice(i, i + 3).toUpperCase()
      i += 2
    } else if (LITERAL.test(c) || (opts.keepNonAscii && c.charCodeAt(0) > 0x7f)) {
      out += c
    } else {
      // A whole code point (a surrogate pair takes two UTF-16 units); a lone surrogate becomes
      // U+FFFD, as TextEncoder does.
      const point = input.codePointAt(i)!
      const char = String.fromCodePoint(point)
      if (point > 0xffff) i++
      for (const byte of encoder.encode(char)) out += `%${byte.toString(16).toUpperCase().padStart(2, '0')}`
    }
  }
  return out
}
