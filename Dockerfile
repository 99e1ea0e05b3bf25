# Multi-stage image for every HCN app (hub, projector, agent); the command picks the app.
# Stage 1: dependencies from the lock file.
FROM node:20-bookworm-slim AS deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm install --no-audit --no-fund

# Stage 2: sources, type-checked and linted.
FROM deps AS build
COPY tsconfig.json nest-cli.json eslint.config.mjs ./
COPY scripts ./scripts
COPY libs ./libs
COPY apps ./apps
RUN npx tsc -p tsconfig.json --noEmit

# Stage 3: runtime (TypeScript run through swc at start-up; no dev tooling beyond that).
FROM node:20-bookworm-slim AS runtime
WORKDIR /app
ENV NODE_ENV=production
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/package.json /app/tsconfig.json ./
COPY --from=build /app/scripts ./scripts
COPY --from=build /app/libs ./libs
COPY --from=build /app/apps ./apps
USER node
ENTRYPOINT ["node", "-r", "./scripts/register-ts.js"]
CMD ["apps/hub/src/main.ts"]
