# HermesX image: `docker build -t hermesx .`, then `docker run hermesx saas-api` (the default).
# The build stage installs every dependency (devDependencies too) and runs `npm run build`, which
# writes everything the service serves into dist/ (the compiled TypeScript and any built front-end
# assets); the runtime stage carries production dependencies and that dist/ only, so
# bin/hermesx.js finds no TypeScript and just runs dist/.
# No `# syntax=` line and no BuildKit-only instructions: it builds offline with BuildKit's built-in
# frontend and with the legacy builder (DOCKER_BUILDKIT=0) alike.

ARG NODE_IMAGE=node:22-bookworm-slim

FROM ${NODE_IMAGE} AS build
WORKDIR /app
# Dependencies first, so a source-only change reuses this layer.
COPY package.json package-lock.json ./
# Install scripts are not needed to build (they only matter for embedded PostgreSQL at dev time).
RUN npm ci --ignore-scripts --no-audit --no-fund
# The sources: whatever .dockerignore lets through (src/, tsconfig*, front-end folders, …).
COPY . .
RUN npm run build

FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production \
    SAAS_API_PORT=18080
WORKDIR /app
COPY package.json package-lock.json ./
# Production dependencies only. Optional ones are embedded PostgreSQL (the package and its binaries),
# used by `hermesx dev` only, which says so in this image; never by `saas-api` or `migrate`.
RUN npm ci --omit=dev --omit=optional --ignore-scripts --no-audit --no-fund \
    && npm cache clean --force \
    && rm -rf /root/.npm /tmp/*
COPY --from=build /app/dist ./dist
COPY migrations ./migrations
COPY bin ./bin
COPY hermesx ./hermesx
# hermesx_build_info{commit}: the image has no git; `docker build --build-arg HERMESX_COMMIT=$(git rev-parse HEAD) .`
ARG HERMESX_COMMIT=unknown
ENV HERMESX_COMMIT=${HERMESX_COMMIT}
# The node image's unprivileged user, by number so Kubernetes' runAsNonRoot can verify it.
# Nothing is written at runtime, so the container runs with --read-only (readOnlyRootFilesystem).
USER 1000:1000
EXPOSE 18080
# SIGTERM drains in-flight runs for SCHEDULER_SHUTDOWN_GRACE (20s), so give `docker stop` more
# than that (`docker stop -t 30`, compose's stop_grace_period, Kubernetes' grace period).
STOPSIGNAL SIGTERM
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s --retries=3 \
    CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.SAAS_API_PORT || 18080) + '/health/live').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
ENTRYPOINT ["node", "bin/hermesx.js"]
CMD ["saas-api"]
