# syntax=docker/dockerfile:1
# HermesX image: `docker build -t hermesx .`, then `docker run hermesx saas-api` (the default).
# The build stage compiles TypeScript to dist/; the runtime stage carries production
# dependencies only, so bin/hermesx.js finds no TypeScript and just runs dist/.

ARG NODE_IMAGE=node:22-bookworm-slim

FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json ./
# Install scripts are not needed to compile (they only matter for esbuild and embedded
# PostgreSQL at dev time), so none run during the image build.
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
RUN npm run build

FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production \
    SAAS_API_PORT=18080
WORKDIR /app
COPY package.json package-lock.json ./
# Production dependencies only. Optional ones are the embedded-PostgreSQL binaries, used by
# `hermesx dev` and never by `saas-api` or `migrate`.
RUN npm ci --omit=dev --omit=optional --ignore-scripts --no-audit --no-fund \
    && npm cache clean --force
COPY --from=build /app/dist ./dist
COPY migrations ./migrations
COPY bin ./bin
COPY hermesx ./hermesx
# The node image's unprivileged user, by number so Kubernetes' runAsNonRoot can verify it.
USER 1000:1000
EXPOSE 18080
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s --retries=3 \
    CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.SAAS_API_PORT || 18080) + '/health/live').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
ENTRYPOINT ["node", "bin/hermesx.js"]
CMD ["saas-api"]
