import type { RequestExample } from './request-examples.ts'

/** One entry of an operation's `x-codeSamples` (read by Scalar, Redoc and most other renderers). */
export interface CodeSample {
  lang: 'shell' | 'javascript' | 'python'
  label: string
  source: string
}

export interface SampleRequest {
  method: string
  /** The OpenAPI path, `{id}` style. */
  path: string
  example: RequestExample
  /** Billed answers carry X-Credits-Used: the samples print it. */
  billed: boolean
}

/**
 * curl, JavaScript (fetch) and Python (requests) for one request, with the key read from
 * TRAWL_API_KEY. GET sends the example in the query string, the other methods as a JSON body.
 */
export function codeSamples(baseUrl: string, req: SampleRequest): CodeSample[] {
  const method = req.method.toUpperCase()
  const path = req.path.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(req.example.path?.[name] ?? `<${name}>`))
  const params = req.example.params
  const query = method === 'GET' && params ? `?${new URLSearchParams(Object.entries(params).map(([k, v]) => [k, String(v)]))}` : ''
  const body = method !== 'GET' && params ? params : undefined
  const url = `${baseUrl}${path}${query}`
  return [
    { lang: 'shell', label: 'curl', source: curl(method, url, body) },
    { lang: 'javascript', label: 'JavaScript', source: javascript(method, url, body, req.billed) },
    { lang: 'python', label: 'Python', source: python(method, url, body, req.billed) },
  ]
}

const shellQuote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`

function curl(method: string, url: string, body: unknown): string {
  const lines = [`curl${method === 'GET' ? '' : ` -X ${method}`} ${shellQuote(url)}`, `  -H "Authorization: Bearer $TRAWL_API_KEY"`]
  if (body !== undefined) lines.push(`  -H 'Content-Type: application/json'`, `  -d ${shellQuote(JSON.stringify(body))}`)
  return lines.join(' \\\n')
}

// biome-ignore lint/suspicious/noTemplateCurlyInString: a line of the generated JavaScript, template literal included
const JS_AUTHORIZATION = '    Authorization: `Bearer ${process.env.TRAWL_API_KEY}`,'

function javascript(method: string, url: string, body: unknown, billed: boolean): string {
  const options = [...(method === 'GET' ? [] : [`  method: '${method}',`]), '  headers: {', JS_AUTHORIZATION]
  if (body !== undefined) options.push(`    'Content-Type': 'application/json',`)
  options.push('  },')
  if (body !== undefined) options.push(`  body: JSON.stringify(${indent(JSON.stringify(body, null, 2), '  ')}),`)
  return [
    `const res = await fetch('${url.replace(/'/g, "\\'")}', {`,
    ...options,
    '})',
    'const data = await res.json()',
    billed ? `console.log(res.headers.get('x-credits-used'), data)` : 'console.log(data)',
  ].join('\n')
}

function python(method: string, url: string, body: unknown, billed: boolean): string {
  const args = [`    ${pyString(url)},`, `    headers={"Authorization": f"Bearer {os.environ['TRAWL_API_KEY']}"},`]
  if (body !== undefined) args.push(`    json=${indent(pyLiteral(body), '    ')},`)
  return [
    'import os',
    '',
    'import requests',
    '',
    `res = requests.${method.toLowerCase()}(`,
    ...args,
    ')',
    'data = res.json()',
    billed ? 'print(res.headers["X-Credits-Used"], data)' : 'print(data)',
  ].join('\n')
}

const indent = (text: string, by: string) => text.replace(/\n/g, `\n${by}`)

const pyString = (s: string) => JSON.stringify(s)

/** A Python literal of a JSON value: JSON's syntax, with True, False and None. */
function pyLiteral(value: unknown, depth = 0): string {
  const pad = '    '.repeat(depth + 1)
  const end = '    '.repeat(depth)
  if (value === null || value === undefined) return 'None'
  if (value === true) return 'True'
  if (value === false) return 'False'
  if (typeof value === 'string') return pyString(value)
  if (typeof value === 'number') return String(value)
  if (Array.isArray(value)) return value.length ? `[\n${value.map((v) => `${pad}${pyLiteral(v, depth + 1)},`).join('\n')}\n${end}]` : '[]'
  const entries = Object.entries(value as Record<string, unknown>)
  return entries.length ? `{\n${entries.map(([k, v]) => `${pad}${pyString(k)}: ${pyLiteral(v, depth + 1)},`).join('\n')}\n${end}}` : '{}'
}
