# syntax=docker/dockerfile:1
# Multi-stage: full install and build, then a slim runtime with production dependencies only.
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
COPY patches ./patches
# --ignore-scripts skips postinstall too: the patches (docs/decisions/019) are applied by hand.
RUN npm ci --no-audit --no-fund --ignore-scripts && npx patch-package
COPY . .
RUN npm run build

FROM node:20-bookworm-slim AS prod-deps
WORKDIR /app
COPY package.json package-lock.json ./
COPY patches ./patches
RUN npm ci --omit=dev --no-audit --no-fund --ignore-scripts && npx patch-package

FROM node:20-bookworm-slim
ENV NODE_ENV=production HOST=0.0.0.0 PORT=3000 LOOKOUT_DATA_DIR=/data
WORKDIR /app
COPY --from=prod-deps /app/node_modules ./node_modules
COPY --from=build /app/build ./build
COPY package.json server.ts tsconfig.json ./
COPY server ./server
RUN mkdir -p /data && chown node:node /data
USER node
VOLUME /data
EXPOSE 3000
HEALTHCHECK --interval=15s --timeout=3s --start-period=30s CMD node -e "fetch('http://127.0.0.1:'+process.env.PORT+'/readyz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
# The bundled server (npm run build: scripts/build-server.mjs), plain Node with no TypeScript
# compiled at start; the sources stay for `npx tsx server/db/seed-cli.ts` and the like.
CMD ["node", "build/lookout/server.js"]
