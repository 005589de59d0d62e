// Playground: any vertical, context, research, page reading (webpage, extract), map and crawl with
// their parameters, billed on one of your keys; JSON and Markdown side by side (a crawl: its live
// progress, then its pages), what it cost, and the same request as curl, JavaScript and Python.
import { CrawlView } from './crawl.js'
import { api, BASE, credits, html, useLoad, useMemo, useState } from './lib.js'
import { CopyButton, ErrorNote, Loading } from './ui.js'

/** The control a JSON Schema property gets, and how its text becomes a parameter value. */
function kindOf(schema) {
  if (Array.isArray(schema.enum)) return 'enum'
  if (schema.type === 'boolean') return 'boolean'
  if (schema.type === 'integer' || schema.type === 'number') return 'number'
  if (schema.type === 'array') return 'list'
  // A JSON Schema (schema, output_schema) or any other object: typed as JSON.
  if (schema.type === 'object') return 'json'
  // true, false or a word (context's answer: true|basic|advanced).
  if (schema.anyOf?.some((o) => o.type === 'boolean') && schema.anyOf.every((o) => o.type === 'boolean' || Array.isArray(o.enum))) return 'choice'
  if (schema.anyOf) return 'list-or-text'
  return 'text'
}

/** The values a `choice` offers: true and false, then the words. */
const choices = (schema) => schema.anyOf.flatMap((o) => (o.type === 'boolean' ? ['true', 'false'] : (o.enum ?? [])))

function paramValue(schema, text) {
  const kind = kindOf(schema)
  if (text === '' || text == null) return undefined
  if (kind === 'boolean') return text === 'true'
  if (kind === 'choice') return text === 'true' ? true : text === 'false' ? false : text
  if (kind === 'json') {
    // Text that is not JSON is sent as written: the API refuses it with its own message.
    try {
      return JSON.parse(text)
    } catch {
      return text
    }
  }
  // A select's value is text; a set of numbers (num: 10, 20, 30, 50, 100) is sent as numbers.
  if (kind === 'number' || (kind === 'enum' && typeof schema.enum[0] === 'number')) return Number(text)
  const items = String(text)
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
  if (kind === 'list') return items
  if (kind === 'list-or-text') return items.length > 1 ? items : items[0]
  return text
}

function Field({ name, schema, required, value, onChange }) {
  const kind = kindOf(schema)
  const id = `param-${name}`
  const set = (e) => onChange(name, e.currentTarget.value)
  let control
  if (kind === 'enum' || kind === 'boolean' || kind === 'choice') {
    const options = kind === 'boolean' ? ['true', 'false'] : kind === 'choice' ? choices(schema) : schema.enum
    control = html`<select id=${id} name=${name} value=${value ?? ''} onChange=${set}>
      <option value="">(default)</option>
      ${options.map((o) => html`<option key=${o} value=${o}>${o}</option>`)}
    </select>`
  } else if (kind === 'json') {
    control = html`<textarea id=${id} name=${name} rows="4" spellcheck="false" placeholder='{"type": "object", "properties": {…}}' value=${value ?? ''} onInput=${set} />`
  } else {
    control = html`<input
      id=${id}
      name=${name}
      type=${kind === 'number' ? 'number' : 'text'}
      required=${required}
      value=${value ?? ''}
      placeholder=${kind === 'list' || kind === 'list-or-text' ? 'comma-separated' : ''}
      onInput=${set}
    />`
  }
  return html`<div class=${kind === 'json' ? 'field json' : 'field'}>
    <label for=${id}><code>${name}</code>${required ? html` <span class="req">required</span>` : ''}</label>
    ${control}
    ${schema.description && html`<span class="hint">${schema.description}</span>`}
  </div>`
}

const shellQuote = (s) => `'${s.replace(/'/g, `'\\''`)}'`

function pyLiteral(v, indent = '    ') {
  if (v === null) return 'None'
  if (v === true) return 'True'
  if (v === false) return 'False'
  if (Array.isArray(v)) return `[${v.map((x) => pyLiteral(x, indent)).join(', ')}]`
  if (typeof v === 'object') {
    const entries = Object.entries(v).map(([k, x]) => `${indent}    ${JSON.stringify(k)}: ${pyLiteral(x, `${indent}    `)},`)
    return entries.length ? `{\n${entries.join('\n')}\n${indent}}` : '{}'
  }
  return JSON.stringify(v)
}

/** A crawl or a research answers 202 with its job: the snippet goes on to poll it (GET {path}/{id}) until it ends. */
const CRAWL = '/v1/crawl'
const RESEARCH = '/v1/research'
const JOBS = { [CRAWL]: { noun: 'crawl task', id: 'CRAWL_ID' }, [RESEARCH]: { noun: 'research job', id: 'RESEARCH_ID' } }

export function snippets(path, params) {
  const url = `${BASE}${path}`
  const body = JSON.stringify(params)
  const pretty = JSON.stringify(params, null, 2).replace(/\n/g, '\n  ')
  const job = JOBS[path]
  const polled = job !== undefined
  return {
    curl: [
      `curl -X POST ${shellQuote(url)} \\`,
      `  -H "Authorization: Bearer $TRAWL_API_KEY" \\`,
      `  -H 'Content-Type: application/json' \\`,
      `  -d ${shellQuote(body)}`,
      ...(polled
        ? [
            '',
            `# The answer is the ${job.noun}: set ${job.id} to its id, then poll until its status is completed, failed or canceled`,
            `curl ${shellQuote(`${url}/`)}"$${job.id}" \\`,
            `  -H "Authorization: Bearer $TRAWL_API_KEY"`,
          ]
        : []),
    ].join('\n'),
    javascript: [
      `const res = await fetch(${JSON.stringify(url)}, {`,
      `  method: 'POST',`,
      '  headers: {',
      // biome-ignore lint/suspicious/noTemplateCurlyInString: this is JavaScript source for the user to copy
      '    Authorization: `Bearer ${process.env.TRAWL_API_KEY}`,',
      `    'Content-Type': 'application/json',`,
      '  },',
      `  body: JSON.stringify(${pretty}),`,
      '})',
      'if (!res.ok) throw new Error((await res.json()).error.message)',
      `console.log('credits used:', res.headers.get('x-credits-used'))`,
      ...(polled
        ? [
            'let task = await res.json()',
            `while (task.status === 'queued' || task.status === 'running') {`,
            '  await new Promise((r) => setTimeout(r, 2000))',
            `  task = await (await fetch(\`${url}/\${task.id}\`, { headers: { Authorization: \`Bearer \${process.env.TRAWL_API_KEY}\` } })).json()`,
            '}',
            'console.log(task.result)',
          ]
        : ['console.log(await res.json())']),
    ].join('\n'),
    python: [
      polled ? 'import os\nimport time' : 'import os',
      '',
      'import requests',
      '',
      'res = requests.post(',
      `    ${JSON.stringify(url)},`,
      `    headers={"Authorization": f"Bearer {os.environ['TRAWL_API_KEY']}"},`,
      `    json=${pyLiteral(params)},`,
      '    timeout=60,',
      ')',
      'res.raise_for_status()',
      'print("credits used:", res.headers["X-Credits-Used"])',
      ...(polled
        ? [
            'task = res.json()',
            'while task["status"] in ("queued", "running"):',
            '    time.sleep(2)',
            `    task = requests.get(${JSON.stringify(`${url}/`)} + task["id"], headers={"Authorization": f"Bearer {os.environ['TRAWL_API_KEY']}"}, timeout=60).json()`,
            'print(task["result"])',
          ]
        : ['print(res.json())']),
    ].join('\n'),
  }
}

const FIRST = ['q', 'url', 'urls', 'place_id', 'input']

/** A crawl's answer is its hold; so is a research still running when the playground stopped waiting. */
const stillHeld = (result) => result.path === CRAWL || (result.path === RESEARCH && (result.json.status === 'queued' || result.json.status === 'running'))

/** The picker's label: the key's name and the start of its secret, as the keys table shows it. */
export const keyLabel = (k) => `${k.name} · ${k.prefix}…`

export function PlaygroundScreen() {
  const meta = useLoad(() => api('GET', '/v1/playground'))
  const [name, setName] = useState('search')
  const [texts, setTexts] = useState({})
  const [keyId, setKeyId] = useState('')
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState(null)
  const [result, setResult] = useState(null)
  const [tab, setTab] = useState('curl')

  const vertical = meta.data?.verticals.find((v) => v.name === name)
  const params = useMemo(() => {
    const out = {}
    if (!vertical) return out
    for (const [param, schema] of Object.entries(vertical.params)) {
      const v = paramValue(schema, texts[`${name}.${param}`])
      if (v !== undefined) out[param] = v
    }
    return out
  }, [vertical, texts, name])

  if (meta.error) return html`<section class="screen"><${ErrorNote} error=${meta.error} /></section>`
  if (!meta.data) return html`<${Loading} />`
  const { verticals, keys } = meta.data
  const entries = Object.entries(vertical.params)
  const main = entries.filter(([p]) => FIRST.includes(p) || vertical.required.includes(p))
  const more = entries.filter(([p]) => !(FIRST.includes(p) || vertical.required.includes(p)))
  const onChange = (param, text) => setTexts((t) => ({ ...t, [`${name}.${param}`]: text }))
  const field = ([p, schema]) =>
    html`<${Field} key=${p} name=${p} schema=${schema} required=${vertical.required.includes(p)} value=${texts[`${name}.${p}`]} onChange=${onChange} />`

  const run = async (e) => {
    e.preventDefault()
    setBusy(true)
    setError(null)
    const started = performance.now()
    try {
      const body = { params }
      if (keyId) body.key_id = keyId
      const answer = await api('POST', `/v1/playground/${name}`, body)
      setResult({ ...answer, ms: Math.round(performance.now() - started), path: vertical.path, params })
    } catch (err) {
      setError(err)
      setResult(null)
    }
    setBusy(false)
  }
  const code = snippets(vertical.path, params)
  const keyName = (id) => keys.find((k) => k.id === id)?.name ?? id

  return html`<section class="screen" aria-labelledby="pg-title">
    <div class="screen-head"><h1 id="pg-title">Playground</h1></div>
    <p class="lede">Runs the real API on one of your keys: billed like any call, and counted in its limits and usage.</p>
    ${keys.length === 0 && html`<p class="warning">Create an API key first: the playground bills one of your keys.</p>`}
    <form class="card playground-form" onSubmit=${run}>
      <div class="row-form">
        <label class="field">
          <span>Endpoint</span>
          <select name="vertical" value=${name} onChange=${(e) => setName(e.currentTarget.value)} data-testid="vertical">
            ${verticals.map((v) => html`<option key=${v.name} value=${v.name}>${v.path} · ${v.summary}</option>`)}
          </select>
        </label>
        <label class="field">
          <span>Billed on key</span>
          <select name="key" value=${keyId} onChange=${(e) => setKeyId(e.currentTarget.value)}>
            ${keys.map((k, i) => html`<option key=${k.id} value=${i === 0 ? '' : k.id}>${keyLabel(k)}</option>`)}
          </select>
        </label>
      </div>
      <div class="params">${main.map(field)}</div>
      ${
        more.length > 0 &&
        html`<details class="more">
          <summary>More parameters (${more.length})</summary>
          <div class="params">${more.map(field)}</div>
        </details>`
      }
      <div class="buttons">
        <button type="submit" class="primary" disabled=${busy || keys.length === 0} data-testid="run">${busy ? 'Running…' : 'Run'}</button>
      </div>
      <${ErrorNote} error=${error} />
    </form>
    ${
      result &&
      html`<section class="card" aria-labelledby="pg-result">
        <div class="card-head">
          <h2 id="pg-result">Result</h2>
          <p class="summary" data-testid="pg-summary">
            <strong data-testid="credits-used">${credits(result.credits_used)} credit${result.credits_used === 1 ? '' : 's'}${stillHeld(result) ? ' reserved' : ''}</strong>
            ${result.path === CRAWL && ' (the pages it does not read are refunded when it ends)'}
            ${result.path === RESEARCH && (stillHeld(result) ? ' (still running: what it does not use is refunded when it ends)' : ` (${result.json.status}; the unused part of the hold was refunded)`)}
            ${` · ${result.cache === 'HIT' ? 'cache hit' : 'live'} · ${result.ms} ms · balance ${credits(result.credits_remaining)} · key ${keyName(result.key_id)} · `}
            <code class="small">${result.request_id}</code>
          </p>
        </div>
        ${
          result.path === CRAWL
            ? html`<div class="crawl-run"><${CrawlView} id=${result.json.id} headingLevel=${3} /></div>
                <details class="more">
                  <summary>The task as POST /v1/crawl answered it</summary>
                  <pre data-testid="json-output">${JSON.stringify(result.json, null, 2)}</pre>
                </details>`
            : html`<div class="panes">
                <div class="pane">
                  <div class="pane-head"><h3>JSON</h3><${CopyButton} text=${JSON.stringify(result.json, null, 2)} /></div>
                  <pre data-testid="json-output">${JSON.stringify(result.json, null, 2)}</pre>
                </div>
                <div class="pane">
                  <div class="pane-head"><h3>Markdown</h3>${result.markdown != null && html`<${CopyButton} text=${result.markdown} />`}</div>
                  <pre data-testid="markdown-output">${result.markdown ?? `${result.path} answers JSON only.`}</pre>
                </div>
              </div>`
        }
      </section>`
    }
    <section class="card" aria-labelledby="pg-code">
      <div class="card-head">
        <h2 id="pg-code">This request in code</h2>
        <div class="segmented" role="tablist" aria-label="Language">
          ${['curl', 'javascript', 'python'].map(
            (t) =>
              html`<button type="button" role="tab" aria-selected=${tab === t} aria-pressed=${tab === t} onClick=${() => setTab(t)}>
                ${t === 'curl' ? 'curl' : t === 'javascript' ? 'JavaScript' : 'Python'}
              </button>`,
          )}
        </div>
      </div>
      <p class="hint">Set <code>TRAWL_API_KEY</code> to one of your keys' secrets.</p>
      <div class="snippet">
        <pre data-testid="snippet">${code[tab]}</pre>
        <${CopyButton} text=${code[tab]} />
      </div>
    </section>
  </section>`
}
