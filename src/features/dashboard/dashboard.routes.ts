import cookie from '@fastify/cookie'
import type { FastifyInstance } from 'fastify'
import type { AppDeps } from '../../deps.ts'
import { registerCsrfGuard } from './csrf.ts'
import { dashboardPaths } from './dashboard.http.ts'
import { dashboardApiRoutes } from './dashboard-api.routes.ts'
import { dashboardAppRoutes } from './dashboard-app.routes.ts'
import { dashboardScreenRoutes } from './dashboard-screens.routes.ts'
import { createLoginThrottle, signupBudgets } from './login-throttle.ts'
import { webhookSettingsRoutes } from './webhook-settings.routes.ts'

/**
 * Everything at {app_url}: the web app, and its API at {app_api_url} behind the Origin check. In a
 * scope of its own, so that the cookie parser and the Origin check run for the dashboard's
 * requests only: the API's keys are bearer tokens, and its requests skip both hooks.
 */
export async function dashboardRoutes(app: FastifyInstance, deps: AppDeps) {
  await app.register(async (scope) => {
    await scope.register(cookie)
    const paths = dashboardPaths(deps.config.appUrl)
    registerCsrfGuard(scope, paths.api, paths.origin)
    dashboardApiRoutes(scope, deps, createLoginThrottle(deps), createLoginThrottle(deps, signupBudgets(deps.config.signup.perHour)))
    webhookSettingsRoutes(scope, deps)
    dashboardScreenRoutes(scope, deps)
    dashboardAppRoutes(scope, deps)
  })
}
