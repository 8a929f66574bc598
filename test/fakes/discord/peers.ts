/**
 * Which local process is at the other end of a loopback connection, read
 * from Linux's /proc: the fake uses it to tell which shard process made a
 * REST call (discord.js sends nothing shard-specific over REST), by matching
 * the caller's process with the process whose gateway socket identified as
 * a shard. Elsewhere than Linux it answers `undefined`.
 */
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import type { Socket } from 'node:net';

const known = new WeakMap<Socket, number | undefined>();

/** The pid of the local process that opened `socket` (seen from the server side); cached per socket. */
export function peerProcess(socket: Socket): number | undefined {
  if (known.has(socket)) return known.get(socket);
  const pid = find(socket.remotePort, socket.localPort);
  known.set(socket, pid);
  return pid;
}

/** The inode of the client socket 127.0.0.1:clientPort -> :serverPort, then the process holding it. */
function find(clientPort: number | undefined, serverPort: number | undefined): number | undefined {
  if (!clientPort || !serverPort) return undefined;
  const inode = socketInode(clientPort, serverPort);
  if (!inode) return undefined;
  const target = `socket:[${inode}]`;
  let pids: string[];
  try {
    pids = readdirSync('/proc').filter((name) => /^\d+$/.test(name));
  } catch {
    return undefined;
  }
  for (const pid of pids) {
    let fds: string[];
    try {
      fds = readdirSync(`/proc/${pid}/fd`);
    } catch {
      continue; // gone, or not ours to read
    }
    for (const fd of fds) {
      try {
        if (readlinkSync(`/proc/${pid}/fd/${fd}`) === target) return Number(pid);
      } catch {
        // closed while we looked
      }
    }
  }
  return undefined;
}

function socketInode(clientPort: number, serverPort: number): string | undefined {
  const hex = (port: number) => port.toString(16).toUpperCase().padStart(4, '0');
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text: string;
    try {
      text = readFileSync(table, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      const cols = line.trim().split(/\s+/);
      const local = cols[1];
      const remote = cols[2];
      if (local?.endsWith(`:${hex(clientPort)}`) && remote?.endsWith(`:${hex(serverPort)}`)) return cols[9];
    }
  }
  return undefined;
}
