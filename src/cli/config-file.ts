import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { homedir } from 'node:os'
import { dirname, join } from 'node:path'
import { type Parsed, str, UsageError } from './command.ts'

/**
 * Where a client command finds its server and key: --url/--key, then TRAWL_URL/TRAWL_API_KEY, then
 * the file `trawl login` writes (TRAWL_CONFIG, or $XDG_CONFIG_HOME/trawl/config.json, or
 * ~/.config/trawl/config.json), readable by its owner only (0600, in a 0700 directory).
 */

export const DEFAULT_URL = 'http://127.0.0.1:8080'

export interface SavedLogin {
  url: string
  key: string
}

export interface Connection {
  url: string
  key: string
}

type Env = Record<string, string | undefined>

export function configPath(env: Env = process.env): string {
  if (env.TRAWL_CONFIG) return env.TRAWL_CONFIG
  const base = env.XDG_CONFIG_HOME || join(homedir(), '.config')
  return join(base, 'trawl', 'config.json')
}

export function readLogin(path: string): SavedLogin | null {
  if (!existsSync(path)) return null
  let parsed: unknown
  try {
    parsed = JSON.parse(readFileSync(path, 'utf8'))
  } catch {
    throw new Error(`${path} is not valid JSON; run trawl login again (or trawl logout)`)
  }
  const { url, key } = (parsed ?? {}) as Partial<SavedLogin>
  if (typeof url !== 'string' || typeof key !== 'string') throw new Error(`${path} has no url and key; run trawl login again (or trawl logout)`)
  return { url, key }
}

/** Written to a temporary file created 0600 and renamed over the old one, so the key is never readable by others. */
export function writeLogin(path: string, login: SavedLogin): void {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 })
  const temp = `${path}.${process.pid}.tmp`
  writeFileSync(temp, `${JSON.stringify(login, null, 2)}\n`, { mode: 0o600 })
  chmodSync(temp, 0o600) // an existing temp file keeps its mode otherwise
  renameSync(temp, path)
}

export function removeLogin(path: string): boolean {
  if (!existsSync(path)) return false
  rmSync(path)
  return true
}

export function checkServerUrl(url: string): string {
  const trimmed = url.trim().replace(/\/+$/, '')
  if (!URL.canParse(trimmed) || !/^https?:$/.test(new URL(trimmed).protocol)) {
    throw new UsageError(`the server address must be an http(s) URL such as ${DEFAULT_URL} (got "${url}")`)
  }
  return trimmed
}

/** The server address alone: flag, environment, saved login, default. */
export function resolveUrl(values: Parsed['values'], env: Env = process.env): string {
  const flag = str(values, 'url')
  if (flag !== undefined) return checkServerUrl(flag)
  if (env.TRAWL_URL) return checkServerUrl(env.TRAWL_URL)
  return checkServerUrl(readLogin(configPath(env))?.url ?? DEFAULT_URL)
}

/** Server and key; without a key anywhere, a usage error that says where one goes. */
export function resolveConnection(values: Parsed['values'], env: Env = process.env): Connection {
  const saved = () => readLogin(configPath(env))
  const key = str(values, 'key') ?? (env.TRAWL_API_KEY || undefined) ?? saved()?.key
  if (!key) throw new UsageError('no API key: pass --key, set TRAWL_API_KEY, or run trawl login')
  return { url: resolveUrl(values, env), key: key.trim() }
}
