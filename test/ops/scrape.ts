/** Reading the operations endpoints the way a load balancer or Prometheus does: plain HTTP GETs. */

/** GETs `path` on the loopback `port`: status, body and content type. */
export async function get(
  port: number,
  path: string,
): Promise<{ status: number; body: string; type: string }> {
  const response = await fetch(`http://127.0.0.1:${port}${path}`);
  return {
    status: response.status,
    body: await response.text(),
    type: response.headers.get('content-type') ?? '',
  };
}

/** The value of one sample line of the Prometheus text, or undefined when absent. */
export function sample(metrics: string, name: string, labels: Record<string, string>): number | undefined {
  const want = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
  for (const line of metrics.split('\n')) {
    if (!line.startsWith(`${name}{`)) continue;
    if (want.every((pair) => line.includes(pair))) return Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return undefined;
}
