/**
 * The JSON array or object text that starts at `from` (after optional spaces) in a page's script,
 * found by bracket matching with brackets inside JSON strings ignored; undefined when none starts
 * there or it never closes.
 */
export function balancedJsonAt(text: string, from: number): string | undefined {
  let i = from
  while (text[i] === ' ') i++
  const open = text[i]
  if (open !== '[' && open !== '{') return undefined
  let depth = 0
  let inString = false
  for (let j = i; j < text.length; j++) {
    const c = text[j]
    if (inString) {
      if (c === '\\') j++
      else if (c === '"') inString = false
      continue
    }
    if (c === '"') inString = true
    else if (c === '[' || c === '{') depth++
    else if (c === ']' || c === '}') {
      depth--
      if (depth === 0) return text.slice(i, j + 1)
    }
  }
  return undefined
}
