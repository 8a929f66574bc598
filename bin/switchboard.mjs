#!/usr/bin/env node
// `npx switchboard`: the ready bot, from the compiled package. Configuration
// comes from the environment and from a `.env` file in the current directory;
// `.env.example` beside this folder describes every setting, and
// `npx switchboard --help` says where it is.
await import('../dist/src/main.js');
