/**
 * A fetch answer's body as text, refused past `max` bytes (declared or read), so that an endpoint
 * the operator configured (embeddings, a model) cannot fill memory when it misbehaves.
 */
export async function cappedText(res: Response, max: number): Promise<string> {
  const tooLarge = () => new RangeError(`answered more than ${max / 1024 / 1024} MB`)
  if (Number(res.headers.get('content-length') ?? 0) > max) {
    await res.body?.cancel()
    throw tooLarge()
  }
  const chunks: Uint8Array[] = []
  let size = 0
  for await (const chunk of res.body ?? []) {
    size += chunk.byteLength
    if (size > max) throw tooLarge()
    chunks.push(chunk)
  }
  return Buffer.concat(chunks).toString('utf8')
}
