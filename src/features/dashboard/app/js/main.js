// The dashboard app: session, layout, client-side routing between the screens.
import { KeysScreen } from './keys.js'
import { APP, api, currentPath, html, navigate, onSignedOut, render, SIGNUP_OPEN, useAction, useCallback, useEffect, useState } from './lib.js'
import { PlaygroundScreen } from './playground.js'
import { ErrorNote, FormFoot, Loading, Modal, SecretReveal } from './ui.js'
import { UsageScreen } from './usage.js'
import { WebhooksScreen } from './webhooks.js'
import { WorkScreen } from './work.js'

const SCREENS = [
  { path: '/keys', label: 'Keys', view: KeysScreen },
  { path: '/usage', label: 'Usage', view: UsageScreen },
  { path: '/webhooks', label: 'Webhooks', view: WebhooksScreen },
  // Shown only when the server has at least one of batches, crawls, monitors and engine health.
  { path: '/work', label: 'Work', view: WorkScreen, when: (f) => f.batches || f.crawls || f.monitors || f.engines },
  { path: '/playground', label: 'Playground', view: PlaygroundScreen },
]

function Link({ to, children, current }) {
  const go = (e) => {
    if (e.metaKey || e.ctrlKey || e.shiftKey || e.button !== 0) return
    e.preventDefault()
    navigate(to)
  }
  return html`<a href=${APP + to} onClick=${go} aria-current=${current ? 'page' : undefined}>${children}</a>`
}

/**
 * Sign in, or (only when the server has TRAWL_SIGNUP=open) create an account: the free plan, its
 * owner signed in, and its first API key, whose secret is shown once before the dashboard opens.
 */
function Login({ onSignedIn }) {
  const [mode, setMode] = useState('signin')
  const [email, setEmail] = useState('')
  const [password, setPassword] = useState('')
  const { busy, setBusy, error, setError, run } = useAction()
  const [created, setCreated] = useState(null)
  const signingUp = mode === 'signup'
  const submit = (e) => {
    e.preventDefault()
    return run(async () => {
      if (signingUp) {
        setCreated(await api('POST', '/v1/signup', { email, password }))
        setBusy(false)
        return
      }
      await api('POST', '/v1/login', { email, password })
      await onSignedIn()
    })
  }
  const switchTo = (next) => {
    setMode(next)
    setError(null)
  }
  // With email proof on (TRAWL_SIGNUP_VERIFY_URL) the account is made when the emailed link is opened.
  if (created?.status === 'verification_sent')
    return html`<main class="login">
      <section class="card login-card" aria-labelledby="verify-title" data-testid="signup-verify">
        <h1 id="verify-title">Check your inbox</h1>
        <p>${`A link to finish your sign-up was sent to ${created.email}. It works once, until ${new Date(created.expires_at).toLocaleString()}; opening it creates your account and signs you in.`}</p>
        <button type="button" class="link" onClick=${() => setCreated(null)}>Back</button>
      </section>
    </main>`
  if (created)
    return html`<main class="login">
      <${SecretReveal} title="Your account is ready" secret=${created.key.secret} onDone=${onSignedIn}>
        <p data-testid="signup-summary">
          ${`This is your first API key, "${created.key.name}". Your account is on the ${created.account.plan} plan with ${created.account.balance} credits.`}
        </p>
      <//>
    </main>`
  return html`<main class="login">
    <form class="card login-card" onSubmit=${submit} aria-labelledby="login-title">
      <div class="brand big"><span class="logo" aria-hidden="true"></span> Trawl</div>
      <h1 id="login-title">${signingUp ? 'Create your account' : 'Sign in to your dashboard'}</h1>
      <label class="field">
        <span>Email</span>
        <input type="email" name="email" autocomplete=${signingUp ? 'email' : 'username'} required value=${email} onInput=${(e) => setEmail(e.currentTarget.value)} />
      </label>
      <label class="field">
        <span>${signingUp ? 'Password (8 to 256 characters)' : 'Password'}</span>
        <input
          type="password"
          name="password"
          autocomplete=${signingUp ? 'new-password' : 'current-password'}
          required
          minlength=${signingUp ? 8 : undefined}
          maxlength=${signingUp ? 256 : undefined}
          value=${password}
          onInput=${(e) => setPassword(e.currentTarget.value)}
        />
      </label>
      <${ErrorNote} error=${error} />
      ${
        signingUp
          ? html`<button type="submit" class="primary block" disabled=${busy}>${busy ? 'Creating…' : 'Create account'}</button>`
          : html`<button type="submit" class="primary block" disabled=${busy}>${busy ? 'Signing in…' : 'Sign in'}</button>`
      }
      ${
        !SIGNUP_OPEN
          ? html`<p class="hint">Accounts are created by the operator (<code>trawl accounts create</code>).</p>`
          : signingUp
            ? html`<p class="switch-form">Have an account? <button type="button" class="link" onClick=${() => switchTo('signin')}>Sign in</button></p>`
            : html`<p class="switch-form">New here? <button type="button" class="link" onClick=${() => switchTo('signup')}>Create an account</button></p>`
      }
    </form>
  </main>`
}

/** The signed-in user's own password: the current one required; the user's other sessions end. */
function PasswordDialog({ onClose }) {
  const [current, setCurrent] = useState('')
  const [next, setNext] = useState('')
  const { busy, setBusy, error, run } = useAction()
  const [done, setDone] = useState(false)
  const submit = (e) => {
    e.preventDefault()
    return run(async () => {
      await api('POST', '/v1/password', { current_password: current, new_password: next })
      setDone(true)
      setBusy(false)
    })
  }
  if (done)
    return html`<${Modal} title="Password changed" onClose=${onClose}>
      <div class="modal-body"><p>Your password was changed. Your other sessions were signed out; this one stays signed in.</p></div>
      <footer class="modal-foot"><button type="button" class="primary" onClick=${onClose}>Done</button></footer>
    <//>`
  return html`<${Modal} title="Change password" onClose=${onClose}>
    <form onSubmit=${submit}>
      <label class="field">
        <span>Current password</span>
        <input type="password" name="current_password" autocomplete="current-password" required value=${current} onInput=${(e) => setCurrent(e.currentTarget.value)} />
      </label>
      <label class="field">
        <span>New password (8 to 256 characters)</span>
        <input type="password" name="new_password" autocomplete="new-password" required minlength="8" maxlength="256" value=${next} onInput=${(e) => setNext(e.currentTarget.value)} />
      </label>
      <${FormFoot} error=${error} busy=${busy} label="Change password" working="Changing…" onClose=${onClose} />
    </form>
  <//>`
}

function Layout({ session, screens, active, onSignOut, children }) {
  const { user } = session
  const [changing, setChanging] = useState(false)
  return html`<div class="shell">
    <header class="top">
      <div class="brand"><span class="logo" aria-hidden="true"></span> Trawl</div>
      <nav class="tabs" aria-label="Dashboard">
        ${screens.map((s) => html`<${Link} to=${s.path} current=${s === active}>${s.label}<//>`)}
      </nav>
      <div class="who">
        <span class="email" title=${user.email}>${user.email}</span>
        <span class=${`badge ${user.role === 'owner' ? 'info' : 'neutral'}`}>${user.role}</span>
        <button type="button" class="ghost" onClick=${() => setChanging(true)}>Password</button>
        <button type="button" class="ghost" onClick=${onSignOut}>Sign out</button>
      </div>
    </header>
    ${changing && html`<${PasswordDialog} onClose=${() => setChanging(false)} />`}
    <main class="content" id="main">${children}</main>
  </div>`
}

const HINT = 'trawl_signed_in'
const signedInHint = () => document.cookie.split(/;\s*/).some((c) => c.startsWith(`${HINT}=`))

function App() {
  // undefined: checking the session; null: signed out; else GET /v1/account (user, account, features).
  const [session, setSession] = useState(undefined)
  const [failure, setFailure] = useState(null)
  const [path, setPath] = useState(currentPath())

  const refresh = useCallback(async () => {
    // Signing in sets a readable hint beside the HttpOnly session cookie: without it there is no
    // session to probe, and a probe answered 401 would be logged by the browser as an error.
    if (!signedInHint()) return setSession(null)
    try {
      setSession(await api('GET', '/v1/account'))
      setFailure(null)
    } catch (e) {
      // The server deletes the hint along with a 401.
      if (e.status === 401) setSession(null)
      else setFailure(e)
    }
  }, [])
  useEffect(() => {
    refresh()
  }, [refresh])
  useEffect(() => {
    const onPop = () => setPath(currentPath())
    addEventListener('popstate', onPop)
    return () => removeEventListener('popstate', onPop)
  }, [])
  useEffect(() => onSignedOut(() => setSession(null)), [])

  const signOut = async () => {
    try {
      await api('POST', '/v1/logout')
    } finally {
      setSession(null)
      navigate('/login')
    }
  }

  if (failure && !session)
    return html`<main class="login"><div class="card"><${ErrorNote} error=${failure} /><button onClick=${refresh}>Retry</button></div></main>`
  if (session === undefined) return html`<${Loading} />`
  if (session === null) {
    document.title = 'Sign in · Trawl'
    return html`<${Login}
      onSignedIn=${async () => {
        await refresh()
        if (path === '/' || path === '/login') navigate('/keys', { replace: true })
      }}
    />`
  }
  const screens = SCREENS.filter((s) => !s.when || s.when(session.features ?? {}))
  const active = screens.find((s) => path === s.path || path.startsWith(`${s.path}/`))
  if (!active) {
    // /, /login and unknown paths land on the keys screen.
    queueMicrotask(() => navigate('/keys', { replace: true }))
    return html`<${Loading} />`
  }
  document.title = `${active.label} · Trawl`
  const View = active.view
  return html`<${Layout} session=${session} screens=${screens} active=${active} onSignOut=${signOut}>
    <${View} session=${session} refreshSession=${refresh} path=${path} />
  <//>`
}

const root = document.getElementById('root')
root.textContent = ''
render(html`<${App} />`, root)
