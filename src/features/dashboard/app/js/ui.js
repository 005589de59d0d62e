// Small shared components: dialogs, the one-time secret, copy buttons, switches, errors.
import { copyText, html, useAction, useEffect, useRef, useState } from './lib.js'

/** A modal dialog; `dismissable` false keeps it open until its own buttons close it. */
export function Modal({ title, onClose, children, dismissable = true, wide = false }) {
  const box = useRef(null)
  useEffect(() => {
    const before = document.activeElement
    box.current?.querySelector('input, select, textarea, button.primary, button')?.focus()
    const onKey = (e) => {
      if (e.key === 'Escape' && dismissable) onClose()
    }
    addEventListener('keydown', onKey)
    return () => {
      removeEventListener('keydown', onKey)
      before?.focus?.()
    }
  }, [dismissable, onClose])
  const outside = (e) => {
    if (dismissable && e.target === e.currentTarget) onClose()
  }
  return html`<div class="overlay" onClick=${outside}>
    <div class=${wide ? 'modal wide' : 'modal'} role="dialog" aria-modal="true" aria-labelledby="modal-title" ref=${box}>
      <header class="modal-head">
        <h2 id="modal-title">${title}</h2>
        ${dismissable && html`<button type="button" class="icon" aria-label="Close" onClick=${onClose}>×</button>`}
      </header>
      ${children}
    </div>
  </div>`
}

export function ErrorNote({ error }) {
  if (!error) return null
  return html`<p class="error" role="alert">${error.message ?? String(error)}</p>`
}

export function CopyButton({ text, label = 'Copy', className = '' }) {
  const [state, setState] = useState('idle')
  const copy = async () => {
    setState((await copyText(text)) ? 'copied' : 'failed')
    setTimeout(() => setState('idle'), 2000)
  }
  const shown = state === 'copied' ? 'Copied' : state === 'failed' ? 'Copy failed' : label
  return html`<button type="button" class=${`copy ${className}`} onClick=${copy} aria-live="polite">${shown}</button>`
}

/** A secret shown once (new key, rotated key, rotated webhook secret), with a copy button and a warning. */
export function SecretReveal({ title, secret, children, onDone }) {
  return html`<${Modal} title=${title} onClose=${onDone} dismissable=${false}>
    <p class="warning" role="alert">
      <strong>Copy this secret now: it is shown only once.</strong> Trawl keeps only a hash of it, so nobody can show it again. If you lose
      it, rotate to get a new one.
    </p>
    ${children}
    <div class="secret">
      <code class="secret-value" data-testid="secret">${secret}</code>
      <${CopyButton} text=${secret} className="primary" />
    </div>
    <footer class="modal-foot">
      <button type="button" class="primary" onClick=${onDone}>I have stored it</button>
    </footer>
  <//>`
}

/** Asks before a change; `onConfirm` may be async, its error is shown in the dialog. */
export function Confirm({ title, children, confirmLabel, danger = false, onConfirm, onClose }) {
  const { busy, error, run } = useAction()
  const go = () => run(onConfirm)
  return html`<${Modal} title=${title} onClose=${onClose}>
    <div class="modal-body">${children}</div>
    <${ErrorNote} error=${error} />
    <footer class="modal-foot">
      <button type="button" onClick=${onClose}>Cancel</button>
      <button type="button" class=${danger ? 'danger' : 'primary'} disabled=${busy} onClick=${go}>${busy ? 'Working…' : confirmLabel}</button>
    </footer>
  <//>`
}

/** The end of a form in a dialog: its error, Cancel, and the submit button (`working` while busy). */
export function FormFoot({ error, busy, label, working, onClose }) {
  return html`<${ErrorNote} error=${error} />
    <footer class="modal-foot">
      <button type="button" onClick=${onClose}>Cancel</button>
      <button type="submit" class="primary" disabled=${busy}>${busy ? working : label}</button>
    </footer>`
}

/** A one-field form in a dialog (rename, limit). `onSubmit(value)` may throw to show an error. */
export function PromptModal({ title, label, initial = '', type = 'text', hint, placeholder, submitLabel = 'Save', onSubmit, onClose, extra }) {
  const [value, setValue] = useState(initial)
  const { busy, error, run } = useAction()
  const submit = (e) => {
    e.preventDefault()
    return run(() => onSubmit(value))
  }
  return html`<${Modal} title=${title} onClose=${onClose}>
    <form onSubmit=${submit}>
      <label class="field">
        <span>${label}</span>
        <input
          type=${type}
          value=${value}
          placeholder=${placeholder}
          step=${type === 'number' ? 'any' : undefined}
          min=${type === 'number' ? '0' : undefined}
          onInput=${(e) => setValue(e.currentTarget.value)}
        />
      </label>
      ${hint && html`<p class="hint">${hint}</p>`} ${extra}
      <${FormFoot} error=${error} busy=${busy} label=${submitLabel} working="Saving…" onClose=${onClose} />
    </form>
  <//>`
}

export function Switch({ checked, disabled, onChange, label }) {
  return html`<label class="switch" title=${label}>
    <input type="checkbox" role="switch" checked=${checked} disabled=${disabled} aria-label=${label} onChange=${(e) => onChange(e.currentTarget.checked)} />
    <span class="track" aria-hidden="true"></span>
  </label>`
}

export function Loading({ what = 'Loading' }) {
  return html`<p class="muted loading">${what}…</p>`
}

/** A labelled figure on the usage screen. */
export function Stat({ label, value, note }) {
  return html`<div class="stat">
    <span class="stat-label">${label}</span>
    <strong class="stat-value">${value}</strong>
    ${note && html`<span class="stat-note">${note}</span>`}
  </div>`
}

export function Badge({ tone = 'neutral', children }) {
  return html`<span class=${`badge ${tone}`}>${children}</span>`
}
