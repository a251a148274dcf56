#!/bin/sh
# The container images' steps, in one place: the Dockerfile runs each of them, and test/build/ runs
# `build`, `start` and `healthcheck` on a machine without a container engine (`install` needs the npm
# registry; the tests build from the project's own install instead).
#
#   install      build stage: every dependency, for the compiler
#   build        build stage: `npm run build` (scripts/build.ts) into dist/ (DIST_DIR), and each piece's
#                runtime tree — the /app of its image: the dist/ files and packages it loads, nothing
#                else — into runtime/<piece>/ (RUNTIME_DIR; RUNTIME_PIECES=a,b for some of them)
#   start [piece] [args]   the container's command, run in a runtime tree: plain node on the compiled
#                piece (default explorer), exec'd so that node receives the stop signal (tini forwards
#                it as PID 1); `demo` writes its deployment file to DEPLOYMENT_FILE; DATABASE_URL_FILE,
#                RELAYER_PRIVATE_KEY_FILE, CA_ADMIN_TOKEN_FILE, WEBHOOK_SECRET_KEY_FILE and
#                WEBHOOK_ENCRYPTION_KEY_FILE name files
#                holding those settings
#   healthcheck  HEALTHCHECK: GET HEALTHCHECK_URL (default the explorer's /health), 0 on a 2xx; a
#                tcp://host:port URL only checks that the port accepts a connection
set -eu

step=${1:-}
case "$step" in
  install)
    npm ci --no-audit --no-fund
    ;;
  build)
    exec node --import tsx scripts/build.ts --outdir "${DIST_DIR:-dist}" --runtime "${RUNTIME_DIR:-runtime}" ${RUNTIME_PIECES:+--pieces "$RUNTIME_PIECES"}
    ;;
  start)
    piece=${2:-explorer}
    [ $# -ge 2 ] && shift 2 || shift $#
    if [ ! -f "dist/$piece.js" ] || [ "${piece#chunk-}" != "$piece" ]; then
      echo "image-steps: no piece \"$piece\" in dist/ (this image runs: $(cd dist && ls *.js | grep -v -e '^chunk-' -e '-worker\.js$' | sed 's/\.js$//' | tr '\n' ' '))" >&2
      exit 64
    fi
    # Secrets from files (compose `secrets:`, mounted under /run/secrets): NAME_FILE sets NAME.
    for name in DATABASE_URL RELAYER_PRIVATE_KEY CA_ADMIN_TOKEN WEBHOOK_SECRET_KEY WEBHOOK_ENCRYPTION_KEY; do
      eval "file=\${${name}_FILE:-}"
      if [ -n "$file" ]; then
        value=$(cat "$file") || exit 64
        export "$name=$value"
      fi
    done
    if [ "$piece" = demo ]; then
      exec node dist/demo.js --out "${DEPLOYMENT_FILE:-.data/deployment.json}" "$@"
    fi
    exec node "dist/$piece.js" "$@"
    ;;
  healthcheck)
    exec node -e '
      const url = new URL(process.env.HEALTHCHECK_URL || `http://127.0.0.1:${process.env.EXPLORER_PORT || 4001}/health`)
      if (url.protocol === "tcp:") {
        const socket = require("node:net").connect(Number(url.port), url.hostname, () => process.exit(0))
        socket.on("error", () => process.exit(1)).setTimeout(2500, () => process.exit(1))
      } else {
        fetch(url, { signal: AbortSignal.timeout(2500) }).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))
      }
    '
    ;;
  *)
    echo "usage: scripts/image-steps.sh install | build | start [piece] [args] | healthcheck" >&2
    exit 64
    ;;
esac
