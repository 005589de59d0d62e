import { describe, expect, it } from 'vitest'
import { JsLiteralError, readJsLiteral, readJsLiteralAfter } from './js-literal.ts'

const read = (src: string) => readJsLiteral(src).value

describe('readJsLiteral', () => {
  it('reads JSON', () => {
    expect(read('{"a":[1,2.5,-3e2,true,false,null],"b":{"c":"d\\n\\u00e9"}}')).toEqual({ a: [1, 2.5, -300, true, false, null], b: { c: 'd\né' } })
  })

  it('reads JS literals: bare and quoted keys, single quotes, trailing commas, comments', () => {
    expect(read("{ a: 'it\\'s', 'b-c': \"x\", $d: [1, 2,], /* c */ e: 0x1f, // line\n f: .5, }")).toEqual({ a: "it's", 'b-c': 'x', $d: [1, 2], e: 31, f: 0.5 })
  })

  it('reads void 0, undefined, calls and variables as undefined, keeping the rest', () => {
    expect(read('{a: void 0, b: undefined, c: new Date(1700000000000), d: foo(1, [2, {x: 3}]), e: x.y, f: 1}')).toEqual({
      a: undefined,
      b: undefined,
      c: undefined,
      d: undefined,
      e: undefined,
      f: 1,
    })
    expect(read('[1,,3]')).toEqual([1, undefined, 3])
    expect(read('{a: -Infinity}')).toEqual({ a: Number.NEGATIVE_INFINITY })
  })

  it('decodes escapes and keeps </ and markup in strings', () => {
    expect(read('"\\u003Cstrong>x\\u003C/strong> \\x41 \\u{1F600} a\\\nb"')).toEqual('<strong>x</strong> A 😀 ab')
  })

  it('does not let a __proto__ key change the prototype', () => {
    const v = read('{"__proto__": {"polluted": true}, a: 1}') as Record<string, unknown>
    expect(v).toEqual({ a: 1 })
    expect(Object.getPrototypeOf(v)).toBe(Object.prototype)
    expect(({} as Record<string, unknown>).polluted).toBeUndefined()
  })

  it('reports where it stopped, and throws on broken input', () => {
    expect(readJsLiteral('x = {a: 1}; rest', 4)).toEqual({ value: { a: 1 }, end: 10 })
    expect(() => read('{a: "unterminated')).toThrow(JsLiteralError)
    expect(() => read('{a 1}')).toThrow(JsLiteralError)
    expect(() => read('['.repeat(1000))).toThrow(JsLiteralError)
  })
})

describe('readJsLiteralAfter', () => {
  it('reads the argument after a marker, or undefined', () => {
    const src = 'kit.start(app, element, { node_ids: [0, 2], data: [null, { type: "data" }] });'
    expect(readJsLiteralAfter(src, /kit\.start\(\s*\w+\s*,\s*\w+\s*,\s*/)).toEqual({ node_ids: [0, 2], data: [null, { type: 'data' }] })
    expect(readJsLiteralAfter(src, /nope\(/)).toBeUndefined()
    expect(readJsLiteralAfter('f({a: ', /f\(/)).toBeUndefined()
  })
})
