/**
 * /v1/openapi.json with every `#/components/schemas/…` reference replaced by the schema it names,
 * for tests that walk a response schema by path (the document names its shared shapes; none is
 * recursive).
 */
export async function fetchOpenApi(base: string) {
  const doc = await (await fetch(`${base}/v1/openapi.json`)).json()
  const inline = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(inline)
    if (value === null || typeof value !== 'object') return value
    const ref = (value as { $ref?: unknown }).$ref
    if (typeof ref === 'string' && ref.startsWith('#/components/schemas/')) return inline(doc.components.schemas[ref.slice('#/components/schemas/'.length)])
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, inline(v)]))
  }
  return { ...doc, paths: inline(doc.paths) }
}
