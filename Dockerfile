# Multi-stage image for every HCN app (hub, projector, agent); the command picks the app.
# Stage 1: dependencies from the lock file.
FROM node:20-bookworm-slim AS deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm install --no-audit --no-fund

# Stage 2: compile (tsc -> dist/).
FROM deps AS build
COPY tsconfig.json tsconfig.build.json nest-cli.json ./
COPY scripts ./scripts
COPY libs ./libs
COPY apps ./apps
RUN npm run build && npm prune --omit=dev

# Stage 3: runtime: compiled JavaScript and production dependencies only.
FROM node:20-bookworm-slim AS runtime
WORKDIR /app
ENV NODE_ENV=production
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/package.json ./
COPY --from=build /app/scripts/register-dist.js ./scripts/register-dist.js
COPY --from=build /app/dist ./dist
USER node
ENTRYPOINT ["node", "-r", "./scripts/register-dist.js"]
CMD ["dist/apps/hub/src/main.js"]
