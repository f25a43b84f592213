#!/usr/bin/env python3
"""Runs the README's tour against a fresh server and compares every output with the one shown.

Usage: readme-tour.py SERVER_BINARY [README]

Every ```sh block of the README is run, in order, unless an HTML comment right before it says
otherwise; a block of another language is not run. Directives (an HTML comment on the line
before a block, invisible on the rendered page):

  <!-- tour: skip -->            the block is not run (set-up commands, a second machine)
  <!-- tour: background -->      the block's one command is started in the background and keeps
                                  running (an event stream); its output is checked later
  <!-- tour: output of the background command above -->
                                  the next plain ``` block is what the newest background command
                                  prints; checked (waiting up to 10 s) before the tour goes on
  <!-- tour: restart -->          the server is stopped (SIGINT) and started again on the same
                                  data directory before the block runs

In a run block, the `# ` lines after a command are its expected output. Both sides are compared
with white space folded; `…` in the expected text stands for anything (with the blanks around it), and RFC 3339 times match
any time. `localhost:8080` is replaced by the port the tour's server listens on.
"""
import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import time

FENCE = re.compile(r"^```(\w*)\s*$")
DIRECTIVE = re.compile(r"^<!-- tour: (.+?) -->\s*$")
TIME = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z")


def blocks(readme):
    """(directive or None, language, lines, line number) for every fenced block."""
    lines = open(readme, encoding="utf-8").read().split("\n")
    directive, index = None, 0
    while index < len(lines):
        line = lines[index]
        match = DIRECTIVE.match(line)
        if match:
            directive = match.group(1)
            index += 1
            continue
        fence = FENCE.match(line)
        if fence:
            start = index
            end = index + 1
            while end < len(lines) and lines[end].strip() != "```":
                end += 1
            yield directive, fence.group(1), lines[start + 1:end], start + 1
            index = end + 1
        elif line.strip():
            directive = None
            index += 1
        else:
            index += 1


def commands(lines):
    """(command, expected output lines) for each command of a sh block."""
    result, command, expected = [], None, []
    for line in lines:
        if line.startswith("#"):
            expected.append(line[2:] if line.startswith("# ") else line[1:])
            continue
        if command is not None and command.endswith("\\"):
            command = command[:-1] + " " + line.strip()
            continue
        if command is not None:
            result.append((command, expected))
        command, expected = line.strip(), []
    if command:
        result.append((command, expected))
    return result


def pattern(expected_text):
    """A regular expression for expected text: white space folded, `…` anything, times masked."""
    # White space next to `…` is part of the anything: `{"type":"x", …}` matches `{"type":"x","title":…}`.
    folded = re.sub(r"\s*…\s*", "…", " ".join(expected_text.split()))
    parts = []
    for piece in re.split(r"(…|\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z)", folded):
        if piece == "…":
            parts.append(".*?")
        elif TIME.fullmatch(piece or "-"):
            parts.append(TIME.pattern)
        else:
            parts.append(re.escape(piece))
    return re.compile("".join(parts), re.S)


def matches(expected_lines, actual):
    expected = " ".join(expected_lines)
    return pattern(expected).fullmatch(" ".join(actual.split())) is not None


class Server:
    def __init__(self, binary, directory, port):
        self.binary, self.directory, self.port = binary, directory, port
        self.process = None
        self.log = open(os.path.join(directory, "server.log"), "ab")

    def start(self):
        self.process = subprocess.Popen(
            [self.binary, "--port", str(self.port), "--host", "127.0.0.1"],
            cwd=self.directory, stdout=self.log, stderr=subprocess.STDOUT,
        )
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise SystemExit(f"readme-tour: the server exited with {self.process.returncode}; see {self.log.name}")
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=1):
                    return
            except OSError:
                time.sleep(0.05)
        raise SystemExit("readme-tour: the server did not listen within 30 s")

    def stop(self):
        if self.process and self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
                raise SystemExit("readme-tour: the server did not stop within 20 s of SIGINT")
            if self.process.returncode != 0:
                raise SystemExit(f"readme-tour: the server exited with {self.process.returncode} on SIGINT")


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def main():
    binary = os.path.abspath(sys.argv[1])
    readme = sys.argv[2] if len(sys.argv) > 2 else "README.md"
    directory = tempfile.mkdtemp(prefix="readme-tour.")
    port = free_port()
    server = Server(binary, directory, port)
    server.start()
    background = []  # (command, process, output file)
    failures, checked = [], 0

    def run(command):
        command = command.replace("localhost:8080", f"localhost:{port}")
        return subprocess.run(["bash", "-c", command], capture_output=True, text=True, timeout=30, cwd=directory).stdout

    try:
        for directive, language, lines, line_number in blocks(readme):
            where = f"{readme}:{line_number}"
            if directive == "skip":
                continue
            if directive == "output of the background command above":
                if not background:
                    failures.append(f"{where}: no background command before this output")
                    continue
                command, _, output = background[-1]
                expected = [line for line in lines if line.strip()]
                deadline = time.monotonic() + 10
                while True:
                    actual = [line for line in open(output, encoding="utf-8").read().split("\n")
                              if line.strip() and not line.startswith(":")]
                    ok = len(actual) >= len(expected) and all(
                        matches([want], got) for want, got in zip(expected, actual))
                    if ok or time.monotonic() > deadline:
                        break
                    time.sleep(0.05)
                checked += 1
                if not ok:
                    failures.append(f"{where}: `{command}` printed\n" + "\n".join(actual[:len(expected) + 4])
                                    + "\n  expected it to start with\n" + "\n".join(expected))
                continue
            if language != "sh":
                continue
            if directive == "restart":
                server.stop()
                server.start()
            if directive == "background":
                (command, _), = commands(lines)
                output = os.path.join(directory, f"background-{len(background)}.out")
                process = subprocess.Popen(
                    ["bash", "-c", "exec " + command.replace("localhost:8080", f"localhost:{port}")],
                    stdout=open(output, "w"), stderr=subprocess.DEVNULL, cwd=directory)
                background.append((command, process, output))
                # The stream is open once its first event arrived.
                deadline = time.monotonic() + 10
                while os.path.getsize(output) == 0 and time.monotonic() < deadline:
                    time.sleep(0.02)
                continue
            for command, expected in commands(lines):
                actual = run(command)
                if expected:
                    checked += 1
                    if not matches(expected, actual):
                        failures.append(f"{where}: `{command}`\n  printed:  {' '.join(actual.split())}\n"
                                        f"  expected: {' '.join(expected)}")
    finally:
        for _, process, _ in background:
            process.terminate()
            process.wait()
        server.stop()
    for failure in failures:
        print("FAIL " + failure, file=sys.stderr)
    print(f"readme-tour: {checked - len(failures)} passed, {len(failures)} failed")
    if failures:
        print(f"readme-tour: the server's log and the streams' output are in {directory}", file=sys.stderr)
        return 1
    subprocess.run(["rm", "-rf", directory])
    return 0


if __name__ == "__main__":
    sys.exit(main())
