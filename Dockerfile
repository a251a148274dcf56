# The explorer in one container: Node 20 on Debian bookworm (the uWebSockets.js build we depend on needs
# bookworm's glibc 2.36 or newer, and ships Node 18/20 binaries only). LMDB data lives in the /data volume.
#   docker build -t settlement-explorer .
#   docker run -p 4001:4001 -v explorer-data:/data -e CHAIN_ID=... -e RPC_URL=... -e SETTLEMENT_CONTRACT=... -e START_BLOCK=... settlement-explorer
FROM node:20-bookworm-slim

WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force
COPY tsconfig.json ./
COPY src ./src
COPY scripts ./scripts

ENV NODE_ENV=production \
    DATA_DIR=/data \
    EXPLORER_HOST=0.0.0.0 \
    EXPLORER_PORT=4001 \
    CONFIRMATION_BLOCKS=12
VOLUME ["/data"]
EXPOSE 4001
USER node
HEALTHCHECK --interval=10s --timeout=3s CMD node -e "fetch('http://127.0.0.1:4001/health').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
CMD ["node", "--import", "tsx", "scripts/explorer.ts"]
