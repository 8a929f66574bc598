# switchboard, the ready bot, as a container image.
#
#   docker build -t switchboard .
#   docker run --env-file .env -p 9090:9090 switchboard
#
# Two stages: the first installs every dependency, compiles TypeScript and
# prunes node_modules to what the bot runs; the second holds only the
# compiled bot and those modules, and runs as an unprivileged user. The
# platform SDKs and pg are optional peers of the library (dev dependencies
# here), so the build stage makes them production dependencies at their
# locked versions before pruning: the image runs every platform it has
# credentials for.
#
# The tools' sandbox (bubblewrap) needs user namespaces and its own /proc,
# which Docker's default seccomp profile and masked /proc paths forbid. Either
# allow them:
#
#   docker run --security-opt seccomp=unconfined \
#     --security-opt systempaths=unconfined --env-file .env switchboard
#
# (plus --security-opt apparmor=unconfined where AppArmor confines
# containers), or run with SWITCHBOARD_SANDBOX=off: the tools, Bash included,
# then run as the container's `node` user with the container as the only
# boundary. Under the default SWITCHBOARD_SANDBOX=auto the bot starts without
# the sandbox, says so in its log, and refuses Bash.

FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund --ignore-scripts
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY adapters ./adapters
COPY config ./config
RUN npx tsc -p tsconfig.build.json
COPY scripts/runtime-manifest.mjs ./scripts/
RUN node scripts/runtime-manifest.mjs \
  && npm prune --omit=dev --no-audit --no-fund --ignore-scripts

FROM node:20-bookworm-slim
# bubblewrap confines the agent's tools; the bot refuses Bash without it
# unless SWITCHBOARD_SANDBOX=off. ca-certificates for the platforms' APIs.
RUN apt-get update \
  && apt-get install -y --no-install-recommends bubblewrap ca-certificates \
  && rm -rf /var/lib/apt/lists/*
ENV NODE_ENV=production \
    SWITCHBOARD_DATA_DIR=/data \
    SWITCHBOARD_WORKSPACE=/workspace \
    SWITCHBOARD_HTTP_PORT=9090
WORKDIR /app
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY bin ./bin
COPY .env.example ./
RUN mkdir -p /data /workspace && chown node:node /data /workspace
USER node
VOLUME ["/data", "/workspace"]
EXPOSE 9090
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
  CMD node -e "fetch('http://127.0.0.1:'+(process.env.SWITCHBOARD_HTTP_PORT||9090)+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
# Signals go straight to node (no shell, no npm in between), so SIGTERM
# from `docker stop` stops running replies with a notice and exits 0.
CMD ["node", "bin/switchboard.mjs"]
