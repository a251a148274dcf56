# The explorer (or any other piece) compiled, in one container. Every step is a step of
# scripts/image-steps.sh, which test/build/image.test.ts runs too (no container engine on the machine
# these were written on). Node 20 on Debian bookworm: the uWebSockets.js build we depend on needs
# bookworm's glibc 2.36 or newer and ships Node 18/20 binaries only.
#   docker build -t settlement-explorer .
#   docker run -p 4001:4001 -v explorer-data:/data -e CHAIN_ID=... -e RPC_URL=... -e SETTLEMENT_CONTRACT=... -e START_BLOCK=... settlement-explorer
# Another piece: append its name (gateway, submitter, data-service, checkout, ca, widget, demo-store) and set
# HEALTHCHECK_URL; see the README (Build and image).

FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
COPY scripts/image-steps.sh scripts/
RUN scripts/image-steps.sh install
COPY tsconfig.json ./
COPY src ./src
COPY scripts ./scripts
RUN scripts/image-steps.sh build

FROM node:20-bookworm-slim
# tini as PID 1: forwards the stop signal to node and reaps children (embedded PostgreSQL's, for pieces
# run without DATABASE_URL).
RUN apt-get update && apt-get install -y --no-install-recommends tini && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY package.json package-lock.json ./
COPY scripts/image-steps.sh scripts/
RUN scripts/image-steps.sh install-production
COPY --from=build /app/dist ./dist
RUN mkdir -p /data && chown node:node /data

ENV NODE_ENV=production \
    DATA_DIR=/data \
    EXPLORER_HOST=0.0.0.0 \
    EXPLORER_PORT=4001 \
    CONFIRMATION_BLOCKS=12
VOLUME ["/data"]
EXPOSE 4001
USER node
STOPSIGNAL SIGTERM
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s --retries=3 CMD ["scripts/image-steps.sh", "healthcheck"]
ENTRYPOINT ["tini", "--", "scripts/image-steps.sh", "start"]
CMD ["explorer"]
