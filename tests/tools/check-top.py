#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""accel-info top against a process it did not start: top-load fills a
buffer of known size on the CPU device; top must show that process, its
memory, its commands and a busy share, in JSON and in text, and refuse bad
options. Given a node (the kernel tier: refaccel's /dev/accel/accel0), on
that device, and the driver's fdinfo must agree: engine busy time rising
while the fills run, the client's memory the buffer's."""
import json
import re
import subprocess
import sys

tool, load = sys.argv[1], sys.argv[2]
node = sys.argv[3] if len(sys.argv) > 3 else None
MIB = 8


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


# Long enough for both tops on a loaded machine; killed when done.
proc = subprocess.Popen([load, "60", str(MIB)] + ([node] if node else []),
                        stdout=subprocess.PIPE, text=True)
try:
    if proc.stdout.readline().strip() != "ready":
        fail("top-load did not start")
    out = subprocess.run([tool, "top", "--json", "-n", "2", "-d", "0.5"],
                         capture_output=True, text=True, timeout=30)
    if out.returncode != 0:
        fail(f"top --json exited {out.returncode}: {out.stderr}")
    views = [json.loads(line) for line in out.stdout.splitlines()]
    if len(views) != 2:
        fail(f"{len(views)} views, not 2")
    for v in views:
        if not 4e8 < v["interval_ns"] < 5e9:
            fail(f"interval {v['interval_ns']} ns for -d 0.5")
    # A usage page lists every device of the context; top-load uses one.
    mine = [c for c in views[-1]["clients"]
            if c["pid"] == proc.pid and c["source"] == "libaccel" and
            c["buffers"]]
    if len(mine) != 1:
        fail(f"top-load (pid {proc.pid}) listed {len(mine)} times: "
             f"{views[-1]}")
    c = mine[0]
    print(json.dumps(c))
    if c["command"] != "top-load":
        fail("command is not top-load")
    if node and c["device"] != node:
        fail(f"device {c['device']}, not {node}")
    mem = {m["region"]: m for m in c["memory"]}["memory"]
    if mem["total"] != MIB << 20:
        fail(f"memory {mem['total']} bytes, not {MIB << 20}")
    cmds = c["commands"]
    if not cmds["completed"] > 1 or cmds["failed"] != 0:
        fail(f"commands {cmds}")
    if not cmds["completed_per_s"] > 0:
        fail("no commands per second")
    if c["buffers"] != 1:
        fail(f"{c['buffers']} buffers, not 1")
    busy = {e["name"]: e for e in c["engines"]}["compute"]["busy_percent"]
    # A fill of 8 MiB after another: the device is busy most of the time.
    if busy is None or not 5 <= busy <= 100:
        fail(f"busy {busy}%")
    if node:
        kernel = [k for k in views[-1]["clients"]
                  if k["pid"] == proc.pid and k["source"] == "kernel"]
        if len(kernel) != 1 or kernel[0]["device"] != node:
            fail(f"{len(kernel)} kernel clients on {node}: {views[-1]}")
        k = kernel[0]
        print(json.dumps(k))
        first = [e for v in views for e in
                 [x for x in v["clients"] if x["pid"] == proc.pid and
                  x["source"] == "kernel"][0]["engines"]]
        if len(first) != 2 or not first[1]["busy_ns"] > first[0]["busy_ns"]:
            fail(f"engine busy time does not rise: {first}")
        if not first[1]["busy_percent"] > 0:
            fail(f"engine not busy: {first[1]}")
        total = sum(m.get("total", 0) for m in k["memory"])
        if total != MIB << 20:
            fail(f"driver reports {total} bytes for the client, "
                 f"not {MIB << 20}")

    text = subprocess.run([tool, "top", "-n", "1", "-d", "0.2"],
                          capture_output=True, text=True, timeout=30)
    if text.returncode != 0:
        fail(f"top exited {text.returncode}")
    lines = [line for line in text.stdout.splitlines()
             if line.split()[:2] == [str(proc.pid), "top-load"]]
    # PID COMMAND DEVICE SOURCE MEMORY ...: one line per source (a device
    # name may have spaces).
    found = [re.search(r" (libaccel|refaccel) +8\.0M ", line) for line in lines]
    sources = sorted(m.group(1) if m else "?" for m in found)
    want = sorted(["libaccel"] + (["refaccel"] if node else []))
    if sources != want:
        fail(f"not one 8.0M line for each of {want}:\n{text.stdout}")
finally:
    proc.kill()
    proc.wait()

for bad in (["-d", "0"], ["-d", "x"], ["-n", "0"], ["-n", "-1"], ["extra"],
            ["--no-such"]):
    r = subprocess.run([tool, "top"] + bad, capture_output=True, text=True)
    if r.returncode != 2 or not r.stderr:
        fail(f"top {bad}: exit {r.returncode}, not a usage error")
print("PASS")
