# syntax=docker/dockerfile:1
# One image recipe for both services (ADR 0054). Build from the repository root (the whole workspace is the context):
#   docker build --build-arg APP=issuer        -t mission-authority/issuer .
#   docker build --build-arg APP=person-server -t mission-authority/person-server .
# APP names the folder under apps/. Node 22 LTS: Node 20 reached its end of life on 2026-04-30.
ARG NODE_IMAGE=node:22-bookworm-slim

# Only the npm manifests, so the dependency layer below is rebuilt when they change, not on every code change.
FROM ${NODE_IMAGE} AS manifests
WORKDIR /src
COPY . .
RUN mkdir /manifests \
 && find . -path ./node_modules -prune -o \( -name package.json -o -name package-lock.json \) -print \
    | while read -r file; do mkdir -p "/manifests/$(dirname "$file")" && cp "$file" "/manifests/$file"; done

# Dependencies, with a compiler toolchain: better-sqlite3 builds from source when no prebuilt binary fits.
FROM ${NODE_IMAGE} AS deps
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ ca-certificates \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY --from=manifests /manifests/ ./
RUN npm ci --no-audit --no-fund

FROM deps AS build
ARG APP
COPY . .
# An unknown or missing APP fails here, with its name, instead of producing an image that cannot start.
RUN test -n "${APP}" && test -f "apps/${APP}/src/main.ts" \
    || { echo "build argument APP must name a service under apps/ (issuer, person-server), got '${APP}'" >&2; exit 1; }
# The browser pages' bundles (PS console, issuer operator view; ADR 0040, 0042) and the service's own bundle (ADR 0078:
# one file to load at start instead of ~2,900) are made by esbuild, a dev dependency.
RUN npx tsc -b "apps/${APP}/tsconfig.json" \
 && node tools/scripts/build-console.mjs \
 && node tools/scripts/bundle-services.mjs "${APP}" \
 && npm prune --omit=dev --no-audit --no-fund

FROM ${NODE_IMAGE} AS runtime
ARG APP
# One port layout for both images; compose and Kubernetes set PORT (and MANAGEMENT_PORT) explicitly anyway.
ENV NODE_ENV=production \
    APP=${APP} \
    PORT=8080 \
    MANAGEMENT_PORT=9464 \
    DATA_DIR=/data \
    CONFIG_FILE=/app/config/${APP}.json
WORKDIR /app
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules ./node_modules
# Workspace packages resolve through node_modules/@mission/* symlinks to these folders.
COPY --from=build /app/libs ./libs
COPY --from=build /app/apps/${APP} ./apps/${APP}
# The demo registry as a default; real deployments mount their own CONFIG_FILE.
COPY config/${APP}.json ./config/${APP}.json
RUN mkdir -p /data && chown node:node /data
USER node
VOLUME ["/data"]
EXPOSE 8080 9464
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.MANAGEMENT_PORT || process.env.PORT) + '/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
STOPSIGNAL SIGTERM
WORKDIR /app/apps/${APP}
# The bundle (ADR 0078); dist/main.js, the compiled entry it is made from, runs the same service from the separate files.
CMD ["node", "dist/bundle/main.mjs"]
