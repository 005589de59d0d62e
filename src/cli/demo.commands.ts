import { type Command, positionalsExactly } from './command.ts'

/** `trawl demo`: the server with recorded engine pages, for a first search without internet (src/cli/demo). */
export const demoCommands: Command[] = [
  {
    name: 'demo',
    summary: 'Try Trawl without internet: a throwaway server whose engines answer from recorded result pages',
    details:
      'Runs the API and the dashboard on TRAWL_PORT (default 8080) over a temporary SQLite database, deleted when it stops. Engines are answered from result pages recorded from the real engines, whatever the query, and every response says so in its Trawl-Demo header: web search on every built-in engine, images, videos, maps and places; any other vertical answers 501 not_configured without asking an engine. Prints what is recorded, an API key, a curl line to try, and the dashboard sign-in. Ctrl-C, SIGTERM or SIGHUP stops it. Redis, proxies and API-key engines (TRAWL_REDIS_URL, TRAWL_PROXY_POOLS, TRAWL_PROXY_ENGINES, TRAWL_BRAVE_API_KEY, TRAWL_SEARXNG_URL, TRAWL_SERPER_API_KEY) are not used.',
    flags: {},
    globals: 'none',
    async run(parsed) {
      positionalsExactly(parsed, [])
      const { runDemo } = await import('./demo/demo.ts')
      await runDemo(process.env)
      return 'keep-running'
    },
  },
]
