# Trawl: the API (`serve`, optionally `--processes N`) and the background workers (`worker`) in one
# image. Debian 12 (bookworm) slim with Node.js 24 LTS; the TypeScript sources are bundled by esbuild at
# each start (bin/trawl.mjs), so there is no build step.
# docs/deploy.md: compose.yaml runs it with PostgreSQL and Redis.

FROM node:24-bookworm-slim AS deps
WORKDIR /app
# Every native module ships its binaries inside its npm package (better-sqlite3 13 and impit are
# Node-API builds for linux x64/arm64, glibc and musl): nothing is compiled or downloaded. But
# better-sqlite3 keeps a binding.gyp, and `npm ci` runs node-gyp on it (which builds nothing unless
# asked) unless package.json's allowScripts denies it, as it does; an npm older than 11.16 ignores
# allowScripts, and node-gyp needs python3 and make. So the toolchain stays, in this stage only.
RUN apt-get update \
  && apt-get install -y --no-install-recommends python3 make g++ \
  && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force

FROM node:24-bookworm-slim
# `--build-arg CHROMIUM=true` adds Debian's Chromium for render=auto|always (docs/rendering.md).
ARG CHROMIUM=false
RUN if [ "$CHROMIUM" = "true" ]; then \
      apt-get update && apt-get install -y --no-install-recommends chromium fonts-liberation && rm -rf /var/lib/apt/lists/*; \
    fi
ENV NODE_ENV=production \
    TRAWL_HOST=0.0.0.0 \
    TRAWL_PORT=8080 \
    TRAWL_DATABASE_URL=sqlite:/data/trawl.db
WORKDIR /app
COPY --from=deps /app/node_modules ./node_modules
COPY package.json package-lock.json tsconfig.json ./
COPY bin ./bin
COPY src ./src
# The recorded engine pages `trawl demo` answers from (docs/cli.md).
COPY fixtures/serp ./fixtures/serp
COPY docker/entrypoint.sh docker/init-secrets.sh docker/trawl ./docker/
RUN mkdir -p /data node_modules/.cache/trawl && chown node:node /data node_modules/.cache/trawl \
  && ln -s /app/docker/trawl /usr/local/bin/trawl
USER node
VOLUME /data
EXPOSE 8080
HEALTHCHECK --interval=15s --timeout=5s --start-period=30s \
  CMD node -e "fetch('http://127.0.0.1:'+(process.env.TRAWL_PORT||8080)+'/livez').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
ENTRYPOINT ["sh", "/app/docker/entrypoint.sh"]
CMD ["serve"]
