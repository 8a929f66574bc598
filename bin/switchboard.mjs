#!/usr/bin/env node
// `npx switchboard`: the ready bot, from the compiled package. Configuration
// comes from the environment and from a `.env` file in the current directory
// (see .env.example in the project's repository).
await import('../dist/src/main.js');
