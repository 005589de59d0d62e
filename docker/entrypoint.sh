#!/bin/sh
# Runs `trawl <args>`. When the secret files that compose.yaml's `secrets` service generates are
# mounted (TRAWL_SECRETS_DIR, default /secrets), the settings built from them are exported first,
# unless the variable is already set: the operator token, and the PostgreSQL and Redis URLs with
# their passwords. Trawl itself reads nothing but TRAWL_* variables.
set -eu
dir="${TRAWL_SECRETS_DIR:-/secrets}"

if [ -z "${TRAWL_ADMIN_TOKEN:-}" ] && [ -s "$dir/admin_token" ]; then
  TRAWL_ADMIN_TOKEN="$(cat "$dir/admin_token")"
  export TRAWL_ADMIN_TOKEN
fi
# The image sets a SQLite default, so TRAWL_POSTGRES_HOST (not an unset URL) asks for PostgreSQL.
if [ -s "$dir/postgres_password" ] && [ -n "${TRAWL_POSTGRES_HOST:-}" ]; then
  TRAWL_DATABASE_URL="postgres://${TRAWL_POSTGRES_USER:-trawl}:$(cat "$dir/postgres_password")@${TRAWL_POSTGRES_HOST}:5432/${TRAWL_POSTGRES_DB:-trawl}"
  export TRAWL_DATABASE_URL
fi
if [ -z "${TRAWL_REDIS_URL:-}" ] && [ -s "$dir/redis_password" ] && [ -n "${TRAWL_REDIS_HOST:-}" ]; then
  TRAWL_REDIS_URL="redis://:$(cat "$dir/redis_password")@${TRAWL_REDIS_HOST}:6379"
  export TRAWL_REDIS_URL
fi

# A young generation of 8 MB a half (V8 defaults to 16): about 25 MB less at peak under a crawl,
# the same speed (docs/performance.md).
exec node --max-semi-space-size=8 "$(dirname "$0")/../bin/trawl.mjs" "$@"
