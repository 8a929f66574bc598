/**
 * The seccomp filter every sandboxed process runs under, as the classic BPF
 * program bubblewrap loads with `--seccomp FD`. A deny list: the system calls
 * a shell and its tools have no use for, which are the ones sandbox escapes
 * are made of (mounts, namespaces, another process's memory or descriptors,
 * kernel keyrings, BPF, modules). Everything else is allowed; the user
 * namespace without capabilities is the main wall, this filter the second.
 *
 * No maintained npm package builds such a program, and libseccomp would need
 * a native addon or Python at run time, so it is assembled here. The syscall
 * numbers are checked against libseccomp's own tables in the tests
 * (`scmp_sys_resolver`, test/sandbox/seccomp.test.ts).
 */

/** BPF opcodes used (linux/filter.h). */
const BPF = {
  LD_W_ABS: 0x20, // BPF_LD | BPF_W | BPF_ABS: A = seccomp_data[k]
  JEQ_K: 0x15, // BPF_JMP | BPF_JEQ | BPF_K
  JGE_K: 0x35, // BPF_JMP | BPF_JGE | BPF_K
  JSET_K: 0x45, // BPF_JMP | BPF_JSET | BPF_K
  RET_K: 0x06, // BPF_RET | BPF_K
} as const;

/** seccomp return values (linux/seccomp.h) and errno numbers. */
const SECCOMP_RET_ALLOW = 0x7fff0000;
const SECCOMP_RET_ERRNO = 0x00050000;
const EPERM = 1;
const ENOSYS = 38;

/** Offsets in `struct seccomp_data`: nr, arch, then args[6] as u64 from 16 (low half first: little endian). */
const DATA_NR = 0;
const DATA_ARCH = 4;
const DATA_ARG0_LOW = 16;

/** Namespace flags of clone(2): CLONE_NEWTIME, NEWNS, NEWCGROUP, NEWUTS, NEWIPC, NEWUSER, NEWPID, NEWNET. */
const CLONE_NEW_ANY =
  0x00000080 | 0x00020000 | 0x02000000 | 0x04000000 | 0x08000000 | 0x10000000 | 0x20000000 | 0x40000000;

/** The system calls refused with EPERM, by name. */
export const DENIED_SYSCALLS = [
  // Mounts and namespaces: the filesystem view and isolation stay as bubblewrap made them.
  'mount',
  'umount2',
  'unshare',
  'setns',
  'pivot_root',
  'chroot',
  'fsopen',
  'fsconfig',
  'fsmount',
  'fspick',
  'move_mount',
  'open_tree',
  'mount_setattr',
  // Other processes' memory and descriptors.
  'ptrace',
  'process_vm_readv',
  'process_vm_writev',
  'pidfd_getfd',
  'kcmp',
  // Kernel keyrings, BPF, performance counters, modules, kexec: kernel attack surface.
  'keyctl',
  'add_key',
  'request_key',
  'bpf',
  'perf_event_open',
  'kexec_load',
  'kexec_file_load',
  'init_module',
  'finit_module',
  'delete_module',
  'userfaultfd',
  'open_by_handle_at',
  'lookup_dcookie',
  // The machine's settings.
  'swapon',
  'swapoff',
  'reboot',
  'syslog',
  'acct',
  'settimeofday',
  'clock_settime',
  'clock_adjtime',
  'quotactl',
  'vhangup',
  'iopl',
  'ioperm',
  'uselib',
] as const;

/**
 * Refused with ENOSYS, so programs fall back as on an older kernel: clone3
 * passes its flags in memory a filter cannot read (glibc then uses clone,
 * whose flags are checked), and io_uring bypasses this filter for the
 * operations it performs (libuv falls back to threads).
 */
export const UNSUPPORTED_SYSCALLS = [
  'clone3',
  'io_uring_setup',
  'io_uring_enter',
  'io_uring_register',
] as const;

type Name = (typeof DENIED_SYSCALLS)[number] | (typeof UNSUPPORTED_SYSCALLS)[number] | 'clone';

interface Arch {
  /** AUDIT_ARCH_* of the native ABI (linux/audit.h). */
  audit: number;
  /** Syscall numbers; a name missing here does not exist on the architecture. */
  numbers: Partial<Record<Name, number>>;
  /** x86-64 also accepts x32 calls (numbers with bit 30 set): refused as a whole. */
  x32Bit?: number;
}

/** Calls added since Linux 5.1 have one number on every architecture (asm-generic/unistd.h, 424 on). */
const UNIFIED: Partial<Record<Name, number>> = {
  fsopen: 430,
  fsconfig: 431,
  fsmount: 432,
  fspick: 433,
  move_mount: 429,
  open_tree: 428,
  mount_setattr: 442,
  pidfd_getfd: 438,
  clone3: 435,
  io_uring_setup: 425,
  io_uring_enter: 426,
  io_uring_register: 427,
};

/** From asm/unistd_64.h (x86-64) and asm-generic/unistd.h (arm64). */
export const ARCHES: Record<'x64' | 'arm64', Arch> = {
  x64: {
    audit: 0xc000003e,
    x32Bit: 0x40000000,
    numbers: {
      ...UNIFIED,
      mount: 165,
      umount2: 166,
      unshare: 272,
      setns: 308,
      pivot_root: 155,
      chroot: 161,
      ptrace: 101,
      process_vm_readv: 310,
      process_vm_writev: 311,
      kcmp: 312,
      keyctl: 250,
      add_key: 248,
      request_key: 249,
      bpf: 321,
      perf_event_open: 298,
      kexec_load: 246,
      kexec_file_load: 320,
      init_module: 175,
      finit_module: 313,
      delete_module: 176,
      userfaultfd: 323,
      open_by_handle_at: 304,
      lookup_dcookie: 212,
      swapon: 167,
      swapoff: 168,
      reboot: 169,
      syslog: 103,
      acct: 163,
      settimeofday: 164,
      clock_settime: 227,
      clock_adjtime: 305,
      quotactl: 179,
      vhangup: 153,
      iopl: 172,
      ioperm: 173,
      uselib: 134,
      clone: 56,
    },
  },
  arm64: {
    audit: 0xc00000b7,
    numbers: {
      ...UNIFIED,
      mount: 40,
      umount2: 39,
      unshare: 97,
      setns: 268,
      pivot_root: 41,
      chroot: 51,
      ptrace: 117,
      process_vm_readv: 270,
      process_vm_writev: 271,
      kcmp: 272,
      keyctl: 219,
      add_key: 217,
      request_key: 218,
      bpf: 280,
      perf_event_open: 241,
      kexec_load: 104,
      kexec_file_load: 294,
      init_module: 105,
      finit_module: 273,
      delete_module: 106,
      userfaultfd: 282,
      open_by_handle_at: 265,
      lookup_dcookie: 18,
      swapon: 224,
      swapoff: 225,
      reboot: 142,
      syslog: 116,
      acct: 89,
      settimeofday: 170,
      clock_settime: 112,
      clock_adjtime: 266,
      quotactl: 60,
      vhangup: 58,
      clone: 220,
    },
  },
};

type Insn = [code: number, jt: number, jf: number, k: number];

/**
 * The filter for Node's architecture `arch` (`process.arch`), as bubblewrap
 * reads it: `struct sock_filter` entries (u16 code, u8 jt, u8 jf, u32 k) in
 * the machine's byte order. Undefined for an architecture without a table.
 */
export function seccompFilter(arch: string = process.arch): Buffer | undefined {
  const table = ARCHES[arch as keyof typeof ARCHES];
  if (!table) return undefined;
  const numbers = (names: readonly Name[]) =>
    names.map((name) => table.numbers[name]).filter((nr): nr is number => nr !== undefined);
  const denied = numbers(DENIED_SYSCALLS);
  const unsupported = numbers(UNSUPPORTED_SYSCALLS);
  const clone = table.numbers.clone as number;

  // Layout: arch check, load nr, [x32], deny chain, ENOSYS chain, clone's flags, ALLOW, DENY, NOSYS.
  // Jumps only go forward (an offset counts the instructions skipped), so every target is at the end.
  const body: Insn[] = [];
  const jumps: { at: number; target: 'deny' | 'nosys'; branch: 1 | 2 }[] = [];
  const emit = (insn: Insn) => body.push(insn) - 1;
  // Another ABI (32-bit calls on a 64-bit kernel) numbers calls differently: refused whole.
  emit([BPF.LD_W_ABS, 0, 0, DATA_ARCH]);
  jumps.push({ at: emit([BPF.JEQ_K, 0, 0, table.audit]), target: 'deny', branch: 2 });
  emit([BPF.LD_W_ABS, 0, 0, DATA_NR]);
  if (table.x32Bit !== undefined)
    jumps.push({ at: emit([BPF.JGE_K, 0, 0, table.x32Bit]), target: 'deny', branch: 1 });
  for (const nr of denied) jumps.push({ at: emit([BPF.JEQ_K, 0, 0, nr]), target: 'deny', branch: 1 });
  for (const nr of unsupported) jumps.push({ at: emit([BPF.JEQ_K, 0, 0, nr]), target: 'nosys', branch: 1 });
  // clone with a namespace flag is refused; threads and forks pass. Not clone: skip to ALLOW.
  emit([BPF.JEQ_K, 0, 2, clone]);
  emit([BPF.LD_W_ABS, 0, 0, DATA_ARG0_LOW]);
  jumps.push({ at: emit([BPF.JSET_K, 0, 0, CLONE_NEW_ANY]), target: 'deny', branch: 1 });
  emit([BPF.RET_K, 0, 0, SECCOMP_RET_ALLOW]);
  const labels = {
    deny: emit([BPF.RET_K, 0, 0, SECCOMP_RET_ERRNO | EPERM]),
    nosys: emit([BPF.RET_K, 0, 0, SECCOMP_RET_ERRNO | ENOSYS]),
  };
  for (const { at, target, branch } of jumps) {
    const offset = labels[target] - at - 1;
    if (offset > 255) throw new Error(`seccomp jump out of range (${offset})`);
    (body[at] as Insn)[branch] = offset;
  }
  const out = Buffer.alloc(body.length * 8);
  body.forEach(([code, jt, jf, k], i) => {
    out.writeUInt16LE(code, i * 8);
    out.writeUInt8(jt, i * 8 + 2);
    out.writeUInt8(jf, i * 8 + 3);
    out.writeUInt32LE(k >>> 0, i * 8 + 4);
  });
  return out;
}
