# One image per piece, each holding only what its piece loads: the compiled piece and the packages it
# imports (native builds for this platform only). Every step is a step of scripts/image-steps.sh, which
# test/build/ runs too. Node 20 on Debian bookworm: the uWebSockets.js build we depend on needs bookworm's
# glibc 2.36 or newer and ships Node 18/20 binaries only.
#   docker build -t settlement-explorer .                      # the explorer: the last stage is the default
#   docker build --target gateway -t settlement-gateway .      # gateway, submitter, data-service, checkout,
#                                                              # ca, widget, demo-store, demo
#   docker run -p 4001:4001 -v explorer-data:/data -e CHAIN_ID=... -e RPC_URL=... -e SETTLEMENT_CONTRACT=... -e START_BLOCK=... settlement-explorer
#   docker run -p 3000:3000 -p 4001:4001 -p 4004:4004 settlement-demo demo    # the whole local stack of `npm start`
# See the README (Build and image) for why a target per piece and what each one weighs.

FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
COPY scripts/image-steps.sh scripts/
RUN scripts/image-steps.sh install
COPY tsconfig.json ./
COPY src ./src
COPY scripts ./scripts
RUN scripts/image-steps.sh build

# What every piece's image shares; each target below adds its runtime tree (one layer) and its settings.
FROM node:20-bookworm-slim AS runtime
# tini as PID 1: forwards the stop signal to node and reaps children (the demo's anvil and PostgreSQL).
RUN apt-get update && apt-get install -y --no-install-recommends tini && rm -rf /var/lib/apt/lists/* /var/cache/apt/*.bin
WORKDIR /app
COPY scripts/image-steps.sh scripts/
RUN mkdir -p /data && chown node:node /data
ENV NODE_ENV=production \
    DATA_DIR=/data
VOLUME ["/data"]
USER node
STOPSIGNAL SIGTERM
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s --retries=3 CMD ["scripts/image-steps.sh", "healthcheck"]
ENTRYPOINT ["tini", "--", "scripts/image-steps.sh", "start"]

# The processor pieces take DATABASE_URL (their images leave the embedded PostgreSQL out) and keep files
# (CA_DATA_DIR, WEBHOOK_DATA_DIR, …) under /data.
FROM runtime AS gateway
COPY --from=build /app/runtime/gateway ./
ENV GATEWAY_HOST=0.0.0.0 GATEWAY_PORT=4000 HEALTHCHECK_URL=http://127.0.0.1:4000/health
EXPOSE 4000
CMD ["gateway"]

FROM runtime AS submitter
COPY --from=build /app/runtime/submitter ./
HEALTHCHECK NONE
CMD ["submitter"]

FROM runtime AS data-service
COPY --from=build /app/runtime/data-service ./
ENV DATA_SERVICE_HOST=0.0.0.0 DATA_SERVICE_PORT=4002 HEALTHCHECK_URL=http://127.0.0.1:4002/health
EXPOSE 4002
CMD ["data-service"]

# Its /health answers over mutual TLS only: the health check probes the port.
FROM runtime AS checkout
COPY --from=build /app/runtime/checkout ./
ENV CHECKOUT_HOST=0.0.0.0 CHECKOUT_PORT=4003 HEALTHCHECK_URL=tcp://127.0.0.1:4003 CA_DATA_DIR=/data/ca WEBHOOK_DATA_DIR=/data/webhooks
EXPOSE 4003
CMD ["checkout"]

# The admin API listens on loopback only (it is never exposed): `docker exec` reaches it.
FROM runtime AS ca
COPY --from=build /app/runtime/ca ./
ENV CA_PORT=4005 HEALTHCHECK_URL=http://127.0.0.1:4005/health CA_DATA_DIR=/data/ca
CMD ["ca"]

FROM runtime AS widget
COPY --from=build /app/runtime/widget ./
ENV WIDGET_HOST=0.0.0.0 WIDGET_PORT=4004 HEALTHCHECK_URL=http://127.0.0.1:4004/health
EXPOSE 4004
CMD ["widget"]

FROM runtime AS demo-store
COPY --from=build /app/runtime/demo-store ./
ENV STORE_HOST=0.0.0.0 STORE_PORT=3000 HEALTHCHECK_URL=http://127.0.0.1:3000/health DEMO_MERCHANT_DIR=/data/demo-merchant
EXPOSE 3000
CMD ["demo-store"]

# Everything `npm start` runs, in one container: anvil and an embedded PostgreSQL included, every server
# on 0.0.0.0, all state under /data (started afresh each time, as `npm start` does).
FROM runtime AS demo
COPY --from=build /app/runtime/demo ./
ENV DATA_DIR=/data/explorer \
    EMBEDDED_POSTGRES_DIR=/data/postgres \
    CA_DATA_DIR=/data/ca \
    WEBHOOK_DATA_DIR=/data/webhooks \
    DEMO_MERCHANT_DIR=/data/demo-merchant \
    DEPLOYMENT_FILE=/data/deployment.json \
    EXPLORER_HOST=0.0.0.0 \
    STORE_HOST=0.0.0.0 \
    WIDGET_HOST=0.0.0.0 \
    HEALTHCHECK_URL=http://127.0.0.1:3000/health
EXPOSE 3000 4001 4004
HEALTHCHECK --interval=10s --timeout=3s --start-period=60s --retries=3 CMD ["scripts/image-steps.sh", "healthcheck"]
CMD ["demo"]

# Last, so that a plain `docker build .` builds the explorer.
FROM runtime AS explorer
COPY --from=build /app/runtime/explorer ./
ENV EXPLORER_HOST=0.0.0.0 \
    EXPLORER_PORT=4001 \
    CONFIRMATION_BLOCKS=12
EXPOSE 4001
CMD ["explorer"]
