#!/usr/bin/env python3
"""Figures of RELIABILITY.md's "Decision budget": a verdictd seeded with the dense 8 x 6 graph,
timed from a Python client (Debian's python3-grpcio).

  /usr/bin/python3 -m grpc_tools.protoc -Iproto --python_out=DIR --grpc_python_out=DIR \
      verdict/v1/decision.proto
  PYTHONPATH=DIR /usr/bin/python3 tests/reliability/measure_decision_budget.py \
      bazel-bin/server/verdictd 200 50   # Authorize calls, Simulate calls
"""
import json, os, subprocess, sys, time, re, statistics
import grpc
from verdict.v1 import decision_pb2 as pb, decision_pb2_grpc as pbg

L, W = 8, 6
agents, perms, dlgs = ["agt_subject"], [], []
def la(l, i): return f"agt_l{l}_{i}"
def held(a):
    perms.append({"id": f"perm_{a}_docs", "agent_id": a, "resource": "docs:*", "actions": ["read"], "effect": "allow"})
    perms.append({"id": f"perm_{a}_no", "agent_id": a, "resource": "docs:secret:*", "actions": ["read"], "effect": "deny"})
for l in range(L):
    for i in range(W):
        a = la(l, i); agents.append(a)
        if l == 0: held(a)
        tos = ["agt_subject"] if l + 1 == L else [la(l + 1, j) for j in range(W)]
        for t in tos:
            dlgs.append({"id": f"dlg_{a}_{t}", "from_agent_id": a, "to_agent_id": t,
                         "permissions": [{"resource": "docs:*", "actions": ["read"]}], "max_depth": 8, "status": "active"})
for i in range(8): agents.append(f"agt_w{i}")
held("agt_w0")
policy = {"version": 1, "agents": [{"id": a, "owner": "m@example.com", "name": a, "kind": "autonomous", "status": "active"} for a in agents],
          "permissions": perms, "delegations": dlgs}
d = os.environ.get("TMPDIR", "/tmp") + "/verdict-decision-budget"; os.makedirs(d, exist_ok=True)
for f in os.listdir(d): os.remove(os.path.join(d, f))
json.dump(policy, open(d + "/policy.json", "w"))
proc = subprocess.Popen([sys.argv[1], f"--db={d}/v.db", f"--seed={d}/policy.json", "--listen=127.0.0.1:0", "--admin_listen=off"],
                        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
addr = None
for line in proc.stderr:  # verdictd's log; it logs nothing more here once serving
    m = re.search(r"serving on (\S+)", line)
    if m: addr = m.group(1); break
def rss(field):
    for line in open(f"/proc/{proc.pid}/status"):
        if line.startswith(field): return int(line.split()[1])
try:
    stub = pbg.DecisionServiceStub(grpc.insecure_channel(addr))
    req = pb.AuthorizeRequest(subject=pb.Subject(agent_id="agt_subject"), action="read", resource="docs:secret:1")
    stub.Authorize(req, timeout=600)
    times = []
    for _ in range(int(sys.argv[2])):
        t = time.perf_counter(); r = stub.Authorize(req, timeout=600); times.append((time.perf_counter() - t) * 1000)
    print("authorize dense graph ms: median %.3f min %.3f max %.3f n=%d reason=%s" % (statistics.median(times), min(times), max(times), len(times), pb.ReasonCode.Name(r.reason)))
    direct = pb.AuthorizeRequest(subject=pb.Subject(agent_id="agt_w0"), action="read", resource="docs:public:1")
    times = []
    for _ in range(int(sys.argv[2])):
        t = time.perf_counter(); r = stub.Authorize(direct, timeout=600); times.append((time.perf_counter() - t) * 1000)
    print("authorize direct allow (same client, for comparison) ms: median %.3f min %.3f max %.3f reason=%s" % (statistics.median(times), min(times), max(times), pb.ReasonCode.Name(r.reason)))
    sim = pb.SimulateRequest(request=pb.AuthorizeRequest(subject=pb.Subject(agent_id="agt_w7"), action="read", resource="docs:secret:1"))
    for f in range(8):
        for t in range(8):
            if f == t: continue
            link = sim.what_if.extra_delegations.add(from_agent_id=f"agt_w{f}", to_agent_id=f"agt_w{t}", max_depth=8)
            for res in ("docs:*", "*"): link.permissions.add(resource=res, actions=["read"])
    print("simulate request bytes", sim.ByteSize())
    before_rss, before_hwm = rss("VmRSS"), rss("VmHWM")
    times = []
    for _ in range(int(sys.argv[3])):
        t = time.perf_counter(); r = stub.Simulate(sim, timeout=600); times.append((time.perf_counter() - t) * 1000)
    print("simulate dense what-if ms: median %.3f min %.3f max %.3f n=%d reason=%s; VmRSS +%d KiB, VmHWM +%d KiB" % (
        statistics.median(times), min(times), max(times), len(times), pb.ReasonCode.Name(r.decision.reason), rss("VmRSS") - before_rss, rss("VmHWM") - before_hwm))
finally:
    proc.kill(); proc.wait()
