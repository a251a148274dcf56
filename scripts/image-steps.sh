#!/bin/sh
# The container image's steps, in one place: the Dockerfile runs each of them, and
# test/build/image.test.ts runs `build`, `start` and `healthcheck` on a machine without a container
# engine (the two installs need the npm registry; the test lays out the production install from
# package-lock.json instead).
#
#   install             build stage: every dependency, for the compiler
#   build               build stage: `npm run build` (scripts/build.ts); DIST_DIR overrides `dist`
#   install-production  runtime stage: production dependencies only
#   start [piece]       the container's command: plain node on the compiled piece (default explorer),
#                       exec'd so that node receives the stop signal (tini forwards it as PID 1)
#   healthcheck         HEALTHCHECK: GET HEALTHCHECK_URL (default the explorer's /health), 0 on a 2xx
set -eu

step=${1:-}
case "$step" in
  install)
    npm ci --no-audit --no-fund
    ;;
  build)
    exec node --import tsx scripts/build.ts --outdir "${DIST_DIR:-dist}"
    ;;
  install-production)
    npm ci --omit=dev --no-audit --no-fund
    npm cache clean --force
    ;;
  start)
    piece=${2:-explorer}
    if [ ! -f "dist/$piece.js" ]; then
      echo "image-steps: no piece \"$piece\" in dist/ (explorer, gateway, submitter, data-service, checkout, ca, widget, demo-store)" >&2
      exit 64
    fi
    exec node "dist/$piece.js"
    ;;
  healthcheck)
    exec node -e '
      const url = process.env.HEALTHCHECK_URL || `http://127.0.0.1:${process.env.EXPLORER_PORT || 4001}/health`
      fetch(url, { signal: AbortSignal.timeout(2500) }).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))
    '
    ;;
  *)
    echo "usage: scripts/image-steps.sh install | build | install-production | start [piece] | healthcheck" >&2
    exit 64
    ;;
esac
