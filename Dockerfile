# switchboard, the ready bot, as a container image.
#
#   docker build -t switchboard .
#   docker run --env-file .env -p 9090:9090 switchboard
#
# Two stages: the first installs every dependency and compiles TypeScript;
# the second holds only the compiled bot and its production dependencies,
# and runs as an unprivileged user. The platform SDKs and pg are optional
# peers of the library, so the image installs them explicitly: the ready bot
# runs every platform it has credentials for.

FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund --ignore-scripts
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY adapters ./adapters
COPY config ./config
RUN npx tsc -p tsconfig.build.json

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
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund --ignore-scripts \
  && npm install --no-save --no-audit --no-fund --ignore-scripts \
       grammy@1.46.0 @grammyjs/runner@2.0.3 @grammyjs/auto-retry@2.0.2 \
       @slack/bolt@5.1.0 discord.js@14.28.1 pg@8.23.1 \
  && npm cache clean --force
COPY --from=build /app/dist ./dist
COPY bin ./bin
RUN mkdir -p /data /workspace && chown node:node /data /workspace
USER node
VOLUME ["/data", "/workspace"]
EXPOSE 9090
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
  CMD node -e "fetch('http://127.0.0.1:'+(process.env.SWITCHBOARD_HTTP_PORT||9090)+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
# Signals go straight to node (no shell, no npm in between), so SIGTERM
# from `docker stop` stops running replies with a notice and exits 0.
CMD ["node", "bin/switchboard.mjs"]
