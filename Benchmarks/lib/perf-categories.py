#!/usr/bin/env python3
"""Where a server's CPU goes, per request, by kind of work: reads `perf script` output of a
`perf record -g` of the server (Benchmarks/post-profile.sh with KEEP_PROFILE=1 keeps them), files
each sample under the first category (in the order below) whose marker occurs anywhere in its
call chain, and prints the microseconds per request of each category and of each thread.

    perf script -i DIR/durable.data -F comm,tid,ip,sym,dso > durable.script
    Benchmarks/lib/perf-categories.py durable.script REQUESTS [FREQUENCY]

REQUESTS: the requests the server answered while perf recorded (requests/s x seconds);
FREQUENCY: perf's sampling frequency (post-profile.sh: 2999). A category is a system call or a
library found in the chain; "user" is everything else (Swift, libmicrohttpd, libc).
"""
import collections
import sys

CATEGORIES = [
    ("fdatasync", ["fdatasync"]),
    ("futex wake", ["futex_wake"]),
    ("futex wait", ["futex_wait"]),
    ("epoll_ctl", ["do_epoll_ctl"]),
    ("epoll_wait", ["do_epoll_wait"]),
    ("sendmsg", ["__sys_sendmsg"]),
    ("recvfrom", ["__sys_recvfrom"]),
    ("write, pwrite", ["ksys_pwrite64", "ksys_write"]),
    ("read", ["ksys_read"]),
    ("fcntl", ["do_fcntl"]),
    ("stat", ["vfs_fstatat", "do_statx"]),
    ("scheduler", ["schedule"]),
    ("sqlite (user)", ["libsqlite3"]),
    ("interrupts", ["irq_exit", "do_softirq", "asm_sysvec", "asm_common_interrupt"]),
    ("kernel, other", ["[kernel.kallsyms]"]),
]


def main() -> None:
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    path, requests = sys.argv[1], float(sys.argv[2])
    frequency = float(sys.argv[3]) if len(sys.argv) > 3 else 2999.0
    categories: collections.Counter = collections.Counter()
    threads: collections.Counter = collections.Counter()
    chain: list[str] = []
    thread = None

    def file_sample() -> None:
        if thread is None or not chain:
            return
        threads[thread] += 1
        text = "\n".join(chain)
        for name, markers in CATEGORIES:
            if any(marker in text for marker in markers):
                categories[name] += 1
                return
        categories["user (Swift, libmicrohttpd, libc)"] += 1

    with open(path, errors="replace") as samples:
        for line in samples:
            if not line.strip():
                file_sample()
                chain, thread = [], None
            elif not line[0].isspace():
                thread = line.split()[0]
            else:
                chain.append(line.strip())
    file_sample()

    def micros(count: int) -> float:
        return count / frequency / requests * 1e6

    print(f"all samples: {micros(sum(threads.values())):.2f} us per request")
    for name, count in threads.most_common():
        print(f"  thread {name:24s} {micros(count):6.2f}")
    for name, count in categories.most_common():
        print(f"  {name:31s} {micros(count):6.2f}")


if __name__ == "__main__":
    main()
