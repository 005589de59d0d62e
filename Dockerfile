# Trawl: the API (`serve`, optionally `--processes N`) and the background workers (`worker`) in one
# image. Debian slim with Node 20; the TypeScript sources run through tsx, so there is no build step.
# docs/deploy.md: compose.yaml runs it with PostgreSQL and Redis.

FROM node:20-bookworm-slim AS deps
WORKDIR /app
# better-sqlite3 downloads a prebuilt binary for this platform; the toolchain is only the fallback
# when none matches, and stays in this stage.
RUN apt-get update \
  && apt-get install -y --no-install-recommends python3 make g++ ca-certificates \
  && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force

FROM node:20-bookworm-slim
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
COPY docker/entrypoint.sh docker/init-secrets.sh ./docker/
RUN mkdir -p /data node_modules/.cache/trawl && chown node:node /data node_modules/.cache/trawl
USER node
VOLUME /data
EXPOSE 8080
HEALTHCHECK --interval=15s --timeout=5s --start-period=30s \
  CMD node -e "fetch('http://127.0.0.1:'+(process.env.TRAWL_PORT||8080)+'/livez').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
ENTRYPOINT ["sh", "/app/docker/entrypoint.sh"]
CMD ["serve"]
