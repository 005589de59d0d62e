import { cappedText } from '../../net/capped-text.ts'
import { compareCandidates, type Prepared, type Ranked } from './context.passages.ts'

/**
 * The optional hybrid of POST /v1/context (TRAWL_EMBEDDINGS_URL): the question and the passages
 * are embedded by the operator's OpenAI-compatible `/v1/embeddings` endpoint (Ollama, vLLM,
 * text-embeddings-inference and OpenAI serve it), each passage is ranked by its cosine to the
 * question, and that ranking is fused with the lexical one by reciprocal rank fusion. Words,
 * stems and WordNet find what the question says; the embeddings find what it means.
 *
 * The endpoint is the operator's: its answers are trusted to be vectors and nothing more. A
 * failure of any kind (refused, slow, malformed) is thrown for the caller to rank lexically.
 */

export interface EmbeddingsConfig {
  /** The endpoint, or a base URL that `/v1/embeddings` is appended to. */
  url: string
  model: string | null
}

/** The whole call, request to last byte. */
export const EMBEDDINGS_TIMEOUT_MS = 5_000
/** Passages embedded at most, best lexical first, then in page order. */
const MAX_INPUTS = 128
/** Characters of a passage sent: its start says what it is about; models cut longer inputs anyway. */
const MAX_CHARS = 2_000
/** Reciprocal rank fusion's constant (the value its authors found robust). */
const RRF_K = 60
/** Besides the lexically relevant passages, the closest this many by embedding are candidates. */
const DENSE_TOP = 5

/** The endpoint's URL: as given when it names the embeddings route, else with `/v1/embeddings` appended. */
export function embeddingsEndpoint(url: string): string {
  const u = new URL(url)
  if (/\/embeddings\/?$/.test(u.pathname)) return u.toString()
  u.pathname = `${u.pathname.replace(/\/+$/, '')}/v1/embeddings`
  return u.toString()
}

/** An answer larger than this is refused (a few thousand 4,096-dimension vectors fit). */
const MAX_ANSWER_BYTES = 64 * 1024 * 1024

/** One vector per input, in input order. Throws on any failure, with a message for `meta.notes`. */
export async function embed(config: EmbeddingsConfig, inputs: readonly string[]): Promise<number[][]> {
  const body: { input: readonly string[]; model?: string } = { input: inputs }
  if (config.model) body.model = config.model
  let res: Response
  try {
    res = await fetch(embeddingsEndpoint(config.url), {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(EMBEDDINGS_TIMEOUT_MS),
    })
  } catch (err) {
    const name = (err as Error).name
    throw new Error(name === 'TimeoutError' || name === 'AbortError' ? `no answer within ${EMBEDDINGS_TIMEOUT_MS / 1000} s` : 'could not be reached')
  }
  if (!res.ok) {
    await res.body?.cancel()
    throw new Error(`answered HTTP ${res.status}`)
  }
  let json: unknown
  try {
    json = JSON.parse(await cappedText(res, MAX_ANSWER_BYTES))
  } catch (err) {
    throw err instanceof RangeError ? err : new Error('answered something other than JSON')
  }
  const data = (json as { data?: unknown })?.data
  if (!Array.isArray(data) || data.length !== inputs.length) throw new Error('answered no list of one embedding per input')
  const out: number[][] = new Array(inputs.length)
  let dimensions = -1
  for (const [i, item] of data.entries()) {
    const vector = (item as { embedding?: unknown })?.embedding
    const at = typeof (item as { index?: unknown })?.index === 'number' ? (item as { index: number }).index : i
    if (!Array.isArray(vector) || vector.length === 0 || !vector.every((x) => typeof x === 'number' && Number.isFinite(x))) {
      throw new Error('answered an embedding that is not a list of numbers')
    }
    if (dimensions >= 0 && vector.length !== dimensions) throw new Error('answered embeddings of different lengths')
    if (at < 0 || at >= inputs.length || out[at]) throw new Error('answered embeddings out of order')
    dimensions = vector.length
    out[at] = vector as number[]
  }
  return out
}

function cosine(a: readonly number[], b: readonly number[]): number {
  let dot = 0
  let na = 0
  let nb = 0
  for (let i = 0; i < a.length; i++) {
    dot += a[i]! * b[i]!
    na += a[i]! * a[i]!
    nb += b[i]! * b[i]!
  }
  return na === 0 || nb === 0 ? 0 : dot / Math.sqrt(na * nb)
}

/**
 * The candidates in fused order: reciprocal rank fusion of the lexical ranking (every candidate
 * that matches a word of the question) and the ranking by cosine to the question; candidates are
 * the lexically relevant ones (`lexical`, at the floor or above) and the DENSE_TOP closest by
 * embedding. `score` is the fused score, 1/(60 + lexical rank) + 1/(60 + embedding rank).
 */
export async function hybridOrder(config: EmbeddingsConfig, prep: Prepared, query: string, lexical: readonly Ranked[]): Promise<Ranked[]> {
  const byLexical = prep.candidates
    .map((_, i) => i)
    .filter((i) => prep.lexical[i]! > 0)
    .sort((a, b) => prep.lexical[b]! - prep.lexical[a]! || compareCandidates(prep, a, b))
  const rest = prep.candidates.map((_, i) => i).filter((i) => !(prep.lexical[i]! > 0))
  const embedded = [...byLexical, ...rest].slice(0, MAX_INPUTS)
  const texts = embedded.map((i) => {
    const c = prep.candidates[i]!
    const title = prep.pages[c.page]!.title
    return `${title ? `${title}\n` : ''}${c.visible}`.slice(0, MAX_CHARS)
  })
  const vectors = await embed(config, [query, ...texts])
  const q = vectors[0]!
  if (vectors.some((v) => v.length !== q.length)) throw new Error('answered embeddings of different lengths')
  const similarity = new Map(embedded.map((i, k) => [i, cosine(q, vectors[k + 1]!)]))
  const byDense = [...embedded].sort((a, b) => similarity.get(b)! - similarity.get(a)! || compareCandidates(prep, a, b))
  const lexicalRank = new Map(byLexical.map((i, r) => [i, r + 1]))
  const denseRank = new Map(byDense.map((i, r) => [i, r + 1]))
  const pool = new Set([...lexical.map((r) => r.candidate), ...byDense.slice(0, Math.max(DENSE_TOP, lexical.length))])
  const fused = [...pool].map((i) => {
    const l = lexicalRank.get(i)
    const d = denseRank.get(i)
    const score = (l ? 1 / (RRF_K + l) : 0) + (d ? 1 / (RRF_K + d) : 0)
    return { candidate: i, score: Math.round(score * 1e6) / 1e6 }
  })
  return fused.sort((a, b) => b.score - a.score || compareCandidates(prep, a.candidate, b.candidate))
}
