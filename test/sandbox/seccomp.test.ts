/**
 * The seccomp filter's syscall numbers, checked against libseccomp's own
 * tables through its `scmp_sys_resolver` (Debian's `seccomp` package,
 * installed by scripts/ci-bubblewrap.sh), for every architecture the filter
 * is built for; what the filter does inside a sandbox is tested with the
 * escapes (escapes.test.ts).
 */
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { ARCHES, DENIED_SYSCALLS, seccompFilter, UNSUPPORTED_SYSCALLS } from '../../src/sandbox/seccomp.js';

/** libseccomp's names for the architectures. */
const LIBSECCOMP_ARCH = { x64: 'x86_64', arm64: 'aarch64' } as const;

function resolve(arch: string, name: string): number {
  return Number(execFileSync('scmp_sys_resolver', ['-a', arch, name], { encoding: 'utf8' }).trim());
}

describe('the seccomp filter', () => {
  for (const [node, table] of Object.entries(ARCHES)) {
    it(`uses libseccomp's syscall numbers on ${node}`, () => {
      const arch = LIBSECCOMP_ARCH[node as keyof typeof LIBSECCOMP_ARCH];
      for (const name of [...DENIED_SYSCALLS, ...UNSUPPORTED_SYSCALLS, 'clone'] as const) {
        const theirs = resolve(arch, name);
        // libseccomp answers a negative pseudo-number for a call the architecture does not have.
        expect({ name, nr: table.numbers[name] }).toEqual({ name, nr: theirs < 0 ? undefined : theirs });
      }
    });
  }

  it('is whole sock_filter entries and exists for x64 and arm64 only', () => {
    for (const arch of ['x64', 'arm64']) expect((seccompFilter(arch)?.length ?? 1) % 8).toBe(0);
    expect(seccompFilter('riscv64')).toBeUndefined();
  });
});
