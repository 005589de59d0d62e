import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { z } from 'zod'
import type { Services } from '../../deps.ts'
import { ApiError } from '../../errors.ts'
import { parseInput, parseWith } from '../../http/parse-input.ts'
import { keyName, password, SignupBody } from '../accounts/accounts.schema.ts'
import { clearSignedInHint, dashboardPaths, sessionReader } from './dashboard.http.ts'
import { createDashboardKey, listKeys, patchKey, revokeKey, rotateKey, setMemberKeyLimit } from './keys.service.ts'
import type { LoginThrottle } from './login-throttle.ts'
import { changePassword, login, logout, SESSION_COOKIE, SESSION_TTL_MS, SIGNED_IN_HINT_COOKIE, signup } from './sessions.service.ts'
import { finishSignup, requestSignupLink, VERIFY_PATH } from './signup-verify.ts'

const LoginBody = z.strictObject({ email: z.string().min(1, 'email is required'), password: z.string().min(1, 'password is required') })
const creditLimit = z
  .number({ error: 'credit_limit must be a number of credits or null' })
  .min(0, 'credit_limit must be 0 or more')
  // The operator API's cap: beyond it millicredits leave the safe-integer range of the BIGINT columns.
  .max(1e12, 'credit_limit must be at most 1,000,000,000,000')
  .nullable()
const CreateKeyBody = z.strictObject({ name: keyName, credit_limit: creditLimit.optional() })
const PatchKeyBody = z.strictObject({ name: keyName.optional(), credit_limit: creditLimit.optional(), allow_fallback: z.boolean().optional() })
const MemberLimitBody = z.strictObject({ credit_limit: creditLimit })
const PasswordChangeBody = z.strictObject({
  current_password: z.string({ error: 'current_password is required' }).min(1, 'current_password is required'),
  new_password: password,
})
const IdParams = z.strictObject({ id: z.string().min(1) })
const VerifyQuery = z.strictObject({ token: z.string({ error: 'token is required' }).min(1, 'token is required').max(200, 'token is too long') })

/**
 * The dashboard's own API at {app_api_url} (not public, not versioned): cookie sessions, not API keys.
 * The session cookie is HttpOnly, SameSite=Strict, scoped to the API path, and Secure when the app
 * is served over https; state-changing requests also pass the Origin check of csrf.ts, and login
 * attempts are throttled per IP and per email (login-throttle.ts). docs/dashboard.md has the why.
 */
export function dashboardApiRoutes(
  app: FastifyInstance,
  services: Pick<Services, 'store' | 'keys' | 'config'>,
  throttle: LoginThrottle,
  signupThrottle: LoginThrottle,
) {
  const { app: appPath, api: prefix } = dashboardPaths(services.config.appUrl)
  const httpsApp = services.config.appUrl.startsWith('https:')
  const opts = { schema: { hide: true } }
  const user = sessionReader(services.store, prefix)
  const id = (req: FastifyRequest) => parseWith(IdParams, req.params).id

  const setSessionCookies = (req: FastifyRequest, reply: FastifyReply, token: string) => {
    const secure = httpsApp || req.protocol === 'https'
    reply.setCookie(SESSION_COOKIE, token, { httpOnly: true, sameSite: 'strict', secure, path: prefix, maxAge: SESSION_TTL_MS / 1000 })
    reply.setCookie(SIGNED_IN_HINT_COOKIE, '1', { sameSite: 'strict', secure, path: appPath || '/', maxAge: SESSION_TTL_MS / 1000 })
  }

  app.post(`${prefix}/v1/login`, opts, async (req, reply) => {
    const body = parseInput(LoginBody, req)
    // The attempt is taken before the password is checked: a wrong password keeps it spent.
    const attempt = await throttle.take(req.ip, body.email)
    const session = await login(services.store, body.email, body.password)
    await throttle.succeeded(attempt)
    setSessionCookies(req, reply, session.token)
    return { user: session.user }
  })
  // Off unless TRAWL_SIGNUP=open: then a 404 like any route this server does not have.
  app.post(`${prefix}/v1/signup`, opts, async (req, reply) => {
    if (!services.config.signupOpen) throw new ApiError('not_found', `no route POST ${prefix}/v1/signup: sign-up is off (TRAWL_SIGNUP)`)
    const body = parseInput(SignupBody, req)
    // Budgets of its own, never given back: TRAWL_SIGNUP_PER_HOUR accounts per address (an IPv6
    // /64), one per mailbox (plus-tags folded) an hour; sign-in's budgets are not touched.
    await signupThrottle.take(req.ip, body.email)
    // With a verification hook, the account is made when the emailed link is opened (signup-verify.ts).
    const { verifyUrl } = services.config.signup
    if (verifyUrl) {
      return reply.code(202).send(await requestSignupLink(services.store, verifyUrl, `${services.config.appUrl}/api`, body.email, body.password))
    }
    const created = await signup(services.store, body.email, body.password, services.config.signup.credits)
    setSessionCookies(req, reply, created.token)
    return reply.code(201).send({ user: created.user, account: created.account, key: created.key })
  })
  app.get(`${prefix}${VERIFY_PATH}`, opts, async (req, reply) => {
    if (!services.config.signupOpen || !services.config.signup.verifyUrl) throw new ApiError('not_found', `no route GET ${prefix}${VERIFY_PATH}`)
    const { token } = parseWith(VerifyQuery, req.query)
    const session = await finishSignup(services.store, token, services.config.signup.credits)
    setSessionCookies(req, reply, session.token)
    return reply.redirect(`${services.config.appUrl}/`, 303)
  })
  app.post(`${prefix}/v1/password`, opts, async (req, reply) => {
    const me = await user(req)
    const body = parseInput(PasswordChangeBody, req)
    // The current password is a password check like sign-in's: throttled the same way.
    const attempt = await throttle.take(req.ip, me.email)
    await changePassword(services.store, me, req.cookies[SESSION_COOKIE] ?? '', body.current_password, body.new_password)
    await throttle.succeeded(attempt)
    return reply.code(204).send()
  })
  app.post(`${prefix}/v1/logout`, opts, async (req, reply) => {
    await logout(services.store, req.cookies[SESSION_COOKIE])
    const secure = httpsApp || req.protocol === 'https'
    reply.clearCookie(SESSION_COOKIE, { path: prefix, httpOnly: true, sameSite: 'strict', secure })
    return clearSignedInHint(reply, appPath, secure).code(204).send()
  })
  app.get(`${prefix}/v1/keys`, opts, async (req) => listKeys(services, await user(req)))
  app.post(`${prefix}/v1/keys`, opts, async (req, reply) =>
    reply.code(201).send(await createDashboardKey(services, await user(req), parseInput(CreateKeyBody, req))),
  )
  app.patch(`${prefix}/v1/keys/:id`, opts, async (req) => patchKey(services, await user(req), id(req), parseInput(PatchKeyBody, req)))
  app.post(`${prefix}/v1/keys/:id/rotate`, opts, async (req) => rotateKey(services, await user(req), id(req)))
  app.delete(`${prefix}/v1/keys/:id`, opts, async (req, reply) => {
    await revokeKey(services, await user(req), id(req))
    return reply.code(204).send()
  })
  app.put(`${prefix}/v1/team/member-key-limit`, opts, async (req) =>
    setMemberKeyLimit(services, await user(req), parseInput(MemberLimitBody, req).credit_limit),
  )
}
