# The Cairn image: the HTTP API (`node bin/cairn.mjs serve`, the default) or the consolidation worker
# (`node bin/cairn.mjs worker`), on Node 20. Native modules (better-sqlite3, hnswlib-node) are built in a first
# stage that has the compilers; the runtime stage has none. The offline GloVe embedder's cache is built into the
# image, so containers start without converting the word vectors.
FROM node:20-slim AS deps
WORKDIR /app
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json .npmrc ./
RUN npm ci --omit=dev --no-audit --no-fund

FROM node:20-slim
WORKDIR /app
ENV NODE_ENV=production \
    CAIRN_HOST=0.0.0.0 \
    CAIRN_PORT=8787 \
    CAIRN_CACHE_DIR=/app/cache \
    CAIRN_DATA_DIR=/data
COPY --from=deps /app/node_modules ./node_modules
COPY package.json package-lock.json tsconfig.json ./
COPY bin ./bin
COPY src ./src
COPY migrations ./migrations
RUN node --import tsx --input-type=module \
      -e "const { loadConfig } = await import('./src/config/index.ts'); const { createEmbedder } = await import('./src/embed/select.ts'); await createEmbedder(loadConfig().embed);" \
 && mkdir -p /data && chown node:node /data
USER node
EXPOSE 8787
CMD ["node", "bin/cairn.mjs", "serve"]
