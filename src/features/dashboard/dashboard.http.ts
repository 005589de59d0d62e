import type { FastifyReply, FastifyRequest } from 'fastify'
import type { Store } from '../../store/database.ts'
import { SESSION_COOKIE, type SessionUser, SIGNED_IN_HINT_COOKIE, sessionUser } from './sessions.service.ts'

/** Where the dashboard lives: the app at TRAWL_APP_URL's path, its API under `<app>/api`. */
export function dashboardPaths(appUrl: string) {
  const url = new URL(appUrl)
  const app = url.pathname.replace(/\/$/, '')
  return { app, api: `${app}/api`, origin: url.origin }
}

/** The signed-in user of a dashboard API request, or 401 naming the login route. */
export const sessionReader =
  (store: Store, apiPrefix: string) =>
  (req: FastifyRequest): Promise<SessionUser> =>
    sessionUser(store, req.cookies[SESSION_COOKIE], `${apiPrefix}/v1/login`)

/** Deletes the signed-in hint (sessions.service.ts), set at `appPath`. */
export const clearSignedInHint = (reply: FastifyReply, appPath: string, secure = false) =>
  reply.clearCookie(SIGNED_IN_HINT_COOKIE, { path: appPath || '/', sameSite: 'strict', secure })

/** Rethrows a failed session read after deleting the signed-in hint with it. */
export const forgetSignedIn =
  (reply: FastifyReply, appPath: string) =>
  (err: unknown): never => {
    clearSignedInHint(reply, appPath)
    throw err
  }
