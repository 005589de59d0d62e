import { AsyncLocalStorage } from 'node:async_hooks'

/**
 * The request or job a piece of work belongs to, carried through its async calls, so that every
 * log line written while doing it names it, whichever logger wrote the line: a route's req.log,
 * the app-wide logger services are handed, or a worker's logger.
 *
 * Fields use one key for the request id, `reqId` (Fastify's own), on request lines and on the
 * lines of the jobs a request created, so one query finds a call and all the work it caused.
 */
export interface LogFields {
  /** The request, or for a job the request that created it (batch jobs: `<request id>_<index>`). */
  reqId?: string
  job_id?: string
  job_kind?: string
}

interface LogScope {
  fields: LogFields
  /** A logger whose own bindings already carry the fields (Fastify's req.log): not repeated on its lines. */
  owner?: object
}

const scopes = new AsyncLocalStorage<LogScope>()

/** Runs `fn` (and everything it starts) with `fields` on every log line written meanwhile. */
export function withLogFields<T>(fields: LogFields, fn: () => T, owner?: object): T {
  return scopes.run({ fields, owner }, fn)
}

/** The current request's id, or the id of the request that created the current job. */
export function currentRequestId(): string | undefined {
  return scopes.getStore()?.fields.reqId
}

/**
 * pino's `mixin`: adds the current scope's fields to a line. pino merges the line's own fields
 * over the returned object (which it mutates), so a fresh object every time.
 */
export function logScopeMixin(_line: object, _level: number, logger: object): object {
  const scope = scopes.getStore()
  if (!scope || scope.owner === logger) return {}
  return { ...scope.fields }
}
