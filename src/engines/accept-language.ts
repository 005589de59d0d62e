/** The Accept-Language header the browser-like providers send (Bing and DuckDuckGo build their own). */

/** "pt-BR" → "pt-BR,pt;q=0.9,en;q=0.8"; "en-GB" → "en-GB,en;q=0.9"; "en" → "en". */
export function acceptLanguage(language: string): string {
  const base = language.split('-')[0] ?? language
  const parts = [language]
  if (base !== language) parts.push(`${base};q=0.9`)
  if (base.toLowerCase() !== 'en') parts.push('en;q=0.8')
  return parts.join(',')
}
