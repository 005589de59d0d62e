import { type FastifyBaseLogger, type FastifyReply, type FastifyRequest, LogController } from 'fastify'
import { type ChildLoggerOptions, type DestinationStream, destination, type LoggerOptions, symbols } from 'pino'
import { logScopeMixin } from '../metrics/log-context.ts'

const CENSOR = '[REDACTED]'

// Structured places where credentials live (headers, body fields): pino replaces them whole.
const HEADERS = ['authorization', 'cookie', 'set-cookie', 'x-api-key', 'x-subscription-token']
const HEADER_PATHS = ['headers', '*.headers'].flatMap((at) => HEADERS.map((h) => `${at}["${h}"]`))
const FIELD_PATHS = ['password', 'secret', 'webhook_secret'].flatMap((f) => [f, `*.${f}`, `*.*.${f}`])

// Free text: any string in a line (URLs, messages, error stacks) may carry a key, whoever logged it.
// The patterns run over the finished JSON line, so `"` ends a value and `\x` is one escaped character.
const SECRET_TEXT: [RegExp, string][] = [
  [/trawl(?:_|%5f)live(?:_|%5f)[A-Za-z0-9_-]*/gi, `trawl_live_${CENSOR}`],
  [/whsec_[A-Za-z0-9+/=_-]*/g, `whsec_${CENSOR}`],
  // Credentials in query strings: ?api_key= on GET, ?key= on /customsearch/v1, Serper's ?apiKey=, and the usual others.
  [/([?&;](?:api(?:_|%5f)?key|key|token|secret|password)=)(?:[^&#\s"\\]|\\.)*/gi, `$1${CENSOR}`],
]

/** Whether any of SECRET_TEXT can match: one scan of a line instead of three, for the lines without any. */
const MAY_HOLD_SECRET = /trawl(?:_|%5f)live|whsec_|[?&;](?:api(?:_|%5f)?key|key|token|secret|password)=/i

/** Replaces API keys, webhook secrets and credential query parameters in `text`. */
export function redactSecrets(text: string): string {
  if (!MAY_HOLD_SECRET.test(text)) return text
  let out = text
  for (const [pattern, replacement] of SECRET_TEXT) out = out.replace(pattern, replacement)
  return out
}

/** pino options for the API and `trawl worker`: nothing secret reaches the log, at any level. */
export function loggerOptions(level: string): LoggerOptions {
  return {
    level,
    redact: { paths: [...HEADER_PATHS, ...FIELD_PATHS], censor: CENSOR },
    hooks: { streamWrite: redactSecrets },
    // The request id on every line of a request, and job id, kind and creating request on a job's lines.
    mixin: logScopeMixin,
  }
}

/**
 * JSON lines on stdout (a service manager, Docker, a pipe), written a few kilobytes at a time, and
 * at least every LOG_FLUSH_MS on a quiet server: a write per line (pino's default) was two writes a
 * request at info. pino flushes what is left when the process exits; only a process killed outright
 * (SIGKILL, the OOM killer) loses its last LOG_FLUSH_MS of lines.
 */
export function jsonLogStream(): DestinationStream {
  return destination({ dest: 1, sync: false, minLength: 4096, periodicFlush: LOG_FLUSH_MS })
}

const LOG_FLUSH_MS = 200

/**
 * Fastify's logger for one request: the app's logger with the request id bound. Bound as the
 * pino child's preset JSON instead of as a pino binding: pino 10 runs every binding value through
 * its wildcard redaction (redact paths above), which parses each path again on every call (about
 * 7 KB and several µs a request, a tenth of what a cached search allocated). The id is ours (a
 * prefix and a counter), so there is nothing in it to redact.
 */
export function requestLogger(logger: FastifyBaseLogger, bindings: Record<string, unknown>, opts: ChildLoggerOptions): FastifyBaseLogger {
  const child = logger.child({}, opts) as FastifyBaseLogger & Record<symbol, string>
  for (const [key, value] of Object.entries(bindings)) child[symbols.chindingsSym] += `,${JSON.stringify(key)}:${JSON.stringify(value)}`
  return child
}

/**
 * One line a request at info, "request completed", written when the answer has gone: the request
 * (method, url, version, host, remote address and port), the status and the response time, as
 * pino-http logs it. Fastify's "incoming request" line is kept at debug, for following a request
 * that never completes: at info it was a second line for every request, about 5 % of a cached
 * search's CPU, saying nothing the completed line does not.
 *
 * Both skip pino's path redaction, which would find nothing in them: they log only what Fastify's
 * req and res serializers keep, where none of the redact paths above (headers, password and
 * secret fields) can be. pino runs its wildcard paths over every value of every line and parses
 * each path again on each call: on a cached search that was about a tenth of the server's CPU.
 * Every line still goes through `redactSecrets` (a key in the URL), and lines with an error keep
 * Fastify's own path.
 */
export class RequestLines extends LogController {
  override incomingRequest(request: FastifyRequest, _reply: FastifyReply) {
    if (this.isLogDisabled(request)) return
    withoutPathRedaction(request.log, (log) => log.debug({ req: request }, 'incoming request'))
  }

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply) {
    if (this.isLogDisabled(request)) return
    // A line with an error keeps the path redaction: the error may carry anything.
    if (error) return reply.log.error({ req: request, res: reply, err: error, responseTime: reply.elapsedTime }, 'request errored')
    withoutPathRedaction(reply.log, (log) => log.info({ req: request, res: reply, responseTime: reply.elapsedTime }, 'request completed'))
  }
}

const NO_PATHS = Object.freeze({})

/** Runs `write` with `log`'s path redaction off (pino's per-key stringifiers), then puts it back. */
function withoutPathRedaction(log: FastifyBaseLogger, write: (log: FastifyBaseLogger) => void) {
  const own = log as FastifyBaseLogger & Record<symbol, unknown>
  const saved = own[symbols.stringifiersSym]
  own[symbols.stringifiersSym] = NO_PATHS
  try {
    write(log)
  } finally {
    own[symbols.stringifiersSym] = saved
  }
}
