import type { JsonSchema, OpenApiDocument, OpenApiOperation } from './docs.routes.ts'

/**
 * A self-contained HTML reference rendered on the server from the OpenAPI document: no CDN, no
 * script, so it works on an air-gapped self-hosted install and in any browser.
 */
export function renderReference(doc: OpenApiDocument): string {
  const sections: string[] = []
  for (const [path, ops] of Object.entries(doc.paths).sort(([a], [b]) => a.localeCompare(b))) {
    for (const [method, op] of Object.entries(ops)) sections.push(renderOperation(method.toUpperCase(), path, op))
  }
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(doc.info.title)} reference</title>
<style>
body{font:15px/1.5 system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;color:#1d1d1f}
h1{margin-bottom:.2rem}code{font:13px ui-monospace,monospace;background:#f3f3f5;padding:.1rem .3rem;border-radius:4px}
section{border-top:1px solid #ddd;padding:1rem 0}.m{font-weight:700;margin-right:.5rem}
table{border-collapse:collapse;width:100%;font-size:14px}td,th{border-bottom:1px solid #eee;text-align:left;padding:.3rem .5rem;vertical-align:top}
.muted{color:#666}
</style></head><body>
<h1>${esc(doc.info.title)}</h1>
<p class="muted">Version ${esc(doc.info.version)} · machine-readable: <a href="/v1/openapi.json">/v1/openapi.json</a> (OpenAPI 3.1.0)</p>
<p>${esc(doc.info.description ?? '')} Authenticate with <code>Authorization: Bearer trawl_live_…</code>; GET requests may pass <code>?api_key=</code>. Errors are <code>{"error": {"code", "message", "request_id"}}</code>.</p>
${sections.join('\n')}
</body></html>`
}

function renderOperation(method: string, path: string, op: OpenApiOperation): string {
  const rows: string[] = []
  const body = op.requestBody?.content?.['application/json']?.schema
  if (body?.properties) {
    for (const [name, schema] of Object.entries(body.properties)) rows.push(paramRow(name, schema, body.required?.includes(name) ?? false))
  } else {
    for (const p of op.parameters ?? []) {
      if (p.in === 'query') rows.push(paramRow(p.name, { ...p.schema, description: p.description ?? p.schema?.description }, p.required ?? false))
    }
  }
  return `<section id="${esc(`${method}-${path}`)}"><h2><span class="m">${method}</span><code>${esc(path)}</code></h2>
<p><strong>${esc(op.summary ?? '')}.</strong>${op.description ? ` ${esc(op.description)}` : ''}</p>
${rows.length ? `<table><tr><th>parameter</th><th>type</th><th>notes</th></tr>${rows.join('')}</table>` : ''}${returns(op)}</section>`
}

/** "Returns: request, results, …": the top-level keys of the 200 answer. */
function returns(op: OpenApiOperation): string {
  const schema = op.responses?.['200']?.content?.['application/json']?.schema
  const keys = Object.keys(schema?.properties ?? {})
  return keys.length ? `<p class="muted">Returns ${keys.map((k) => `<code>${esc(k)}</code>`).join(', ')}; errors as <code>{"error": {…}}</code>.</p>` : ''
}

function paramRow(name: string, s: JsonSchema, required: boolean): string {
  const notes: string[] = []
  if (required) notes.push('required')
  if (s.description) notes.push(s.description)
  if (s.enum && !s.description) notes.push(`one of ${s.enum.map(String).join(', ')}`)
  if (s.minimum !== undefined || s.maximum !== undefined) notes.push(`${s.minimum ?? '…'} to ${s.maximum ?? '…'}`)
  if (s.maxLength !== undefined) notes.push(`up to ${s.maxLength} characters`)
  if (s.default !== undefined) notes.push(`default ${JSON.stringify(s.default)}`)
  return `<tr><td><code>${esc(name)}</code></td><td>${esc(typeName(s))}</td><td>${esc(notes.join('; '))}</td></tr>`
}

function typeName(s: JsonSchema): string {
  if (s.anyOf) return s.anyOf.map(typeName).join(' or ')
  if (s.type === 'array') return `${typeName(s.items ?? {})}[]`
  return Array.isArray(s.type) ? s.type.join(' | ') : (s.type ?? 'any')
}

const esc = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)
