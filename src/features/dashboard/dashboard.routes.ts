import type { FastifyInstance } from 'fastify'
import type { AppDeps } from '../../services.ts'
import { registerCsrfGuard } from './csrf.ts'
import { dashboardPaths } from './dashboard.http.ts'
import { dashboardApiRoutes } from './dashboard-api.routes.ts'
import { dashboardAppRoutes } from './dashboard-app.routes.ts'
import { dashboardScreenRoutes } from './dashboard-screens.routes.ts'
import { createLoginThrottle } from './login-throttle.ts'
import { webhookSettingsRoutes } from './webhook-settings.routes.ts'

/** Everything at {app_url}: the web app, and its API at {app_api_url} behind the Origin check. */
export function dashboardRoutes(app: FastifyInstance, deps: AppDeps) {
  const paths = dashboardPaths(deps.config.appUrl)
  registerCsrfGuard(app, paths.api, paths.origin)
  dashboardApiRoutes(app, deps, createLoginThrottle(deps))
  webhookSettingsRoutes(app, deps)
  dashboardScreenRoutes(app, deps)
  dashboardAppRoutes(app, deps)
}
