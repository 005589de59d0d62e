// Shared plumbing of the dashboard app: rendering, the API client, navigation and formatting.
import htm from 'htm'
import { h } from 'preact'
import { useCallback, useEffect, useRef, useState } from 'preact/hooks'

export { render } from 'preact'
export { useCallback, useEffect, useMemo, useRef, useState } from 'preact/hooks'

export const html = htm.bind(h)

const data = document.body.dataset
/** The app's path (e.g. /app), its API (/app/api) and the public API base for snippets. */
export const APP = data.app ?? ''
export const API = data.api ?? '/api'
export const BASE = data.base ?? location.origin
/** Whether this server lets anyone create an account (TRAWL_SIGNUP=open): the sign-in screen then offers it. */
export const SIGNUP_OPEN = data.signup === 'open'

/** An error answer of the dashboard API: status, the envelope's code and message. */
export class ApiFailure extends Error {
  constructor(status, code, message, retryAfter) {
    super(message)
    this.status = status
    this.code = code
    this.retryAfter = retryAfter
  }
}

const listeners = new Set()
/** Called with every 401 outside login: the app goes back to the sign-in screen. */
export const onSignedOut = (fn) => {
  listeners.add(fn)
  return () => listeners.delete(fn)
}

/** Calls the dashboard API with the session cookie; throws ApiFailure on an error answer. */
export async function api(method, path, body) {
  const init = { method, credentials: 'same-origin', headers: { accept: 'application/json' } }
  if (body !== undefined) {
    init.headers['content-type'] = 'application/json'
    init.body = JSON.stringify(body)
  }
  let res
  try {
    res = await fetch(API + path, init)
  } catch {
    throw new ApiFailure(0, 'network', 'The server could not be reached. Check your connection and try again.')
  }
  if (res.status === 204) return null
  const text = await res.text()
  let json = null
  try {
    json = text ? JSON.parse(text) : null
  } catch {
    json = null
  }
  if (!res.ok) {
    const err = json?.error ?? {}
    if (res.status === 401 && path !== '/v1/login') for (const fn of listeners) fn()
    throw new ApiFailure(res.status, err.code ?? 'error', err.message ?? `HTTP ${res.status}`, res.headers.get('retry-after'))
  }
  return json
}

/** Client-side navigation inside the app (index.html answers every app path). */
export function navigate(to, { replace = false } = {}) {
  const url = APP + to
  if (replace) history.replaceState(null, '', url)
  else if (location.pathname + location.search !== url) history.pushState(null, '', url)
  dispatchEvent(new PopStateEvent('popstate'))
}

/** The app-relative path of the current page (/keys, /usage, ...). */
export function currentPath() {
  const path = location.pathname.startsWith(APP) ? location.pathname.slice(APP.length) : location.pathname
  return path.replace(/\/+$/, '') || '/'
}

/**
 * Loads `fn()` and reloads it on demand; `deps` restart it; `update` changes the data in place. Only the newest call's answer is
 * shown: a slow earlier reload (say, after a toggle) must not overwrite the data a later one
 * fetched after a change.
 */
export function useLoad(fn, deps = []) {
  const [state, setState] = useState({ data: null, error: null, loading: true })
  const latest = useRef(0)
  const reload = useCallback(async () => {
    const call = ++latest.current
    setState((s) => ({ ...s, loading: true }))
    try {
      const result = await fn()
      if (call === latest.current) setState({ data: result, error: null, loading: false })
    } catch (error) {
      if (call === latest.current) setState((s) => ({ ...s, error, loading: false }))
    }
  }, deps)
  useEffect(() => {
    reload()
  }, [reload])
  /** Shows a change at once (before the server confirms it); loads still in flight are dropped. */
  const update = useCallback((change) => {
    latest.current++
    setState((s) => ({ ...s, data: change(s.data) }))
  }, [])
  return { ...state, reload, update }
}

/**
 * One user action (a form's submit, a dialog's confirm): busy while `work` runs, its error kept for
 * an ErrorNote. A failed action is no longer busy; a finished one stays busy, as its dialog closes
 * or moves on (`setBusy` for the others).
 */
export function useAction() {
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState(null)
  const run = async (work) => {
    setBusy(true)
    setError(null)
    try {
      await work()
    } catch (err) {
      setError(err)
      setBusy(false)
    }
  }
  return { busy, setBusy, error, setError, run }
}

/**
 * A change asked for from a list (cancel, pause, run now): the API call, its error kept for an
 * ErrorNote, then `reload` of the list whatever happened.
 */
export function useChange(reload) {
  const [error, setError] = useState(null)
  const change = async (method, path, body) => {
    setError(null)
    try {
      await api(method, path, body)
    } catch (e) {
      setError(e)
    }
    reload()
  }
  return { error, change }
}

const numberFormat = new Intl.NumberFormat('en-US', { maximumFractionDigits: 3 })
/** Credits as people read them: 1,234.5 */
export const credits = (n) => (n == null ? '—' : numberFormat.format(n))

export function when(iso) {
  if (!iso) return '—'
  const d = new Date(iso)
  return d.toLocaleString('en-GB', { year: 'numeric', month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit', timeZone: 'UTC' }) + ' UTC'
}

/** "3 min ago", for last-used times. */
export function ago(iso) {
  if (!iso) return 'never'
  const s = Math.max(0, (Date.now() - Date.parse(iso)) / 1000)
  if (s < 60) return 'just now'
  if (s < 3600) return `${Math.floor(s / 60)} min ago`
  if (s < 86400) return `${Math.floor(s / 3600)} h ago`
  return `${Math.floor(s / 86400)} d ago`
}

/** Copies text; falls back to a hidden textarea where the Clipboard API is unavailable. */
export async function copyText(text) {
  try {
    await navigator.clipboard.writeText(text)
    return true
  } catch {
    const area = document.createElement('textarea')
    area.value = text
    area.setAttribute('readonly', '')
    area.className = 'offscreen'
    document.body.append(area)
    area.select()
    const ok = document.execCommand('copy')
    area.remove()
    return ok
  }
}
