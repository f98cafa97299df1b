// verdict's Node.js client against a running verdictd seeded with deploy/demo-policy.json.
//
//   VERDICT_ADDR=127.0.0.1:50051 node --test verdict_client.test.js
//
// VERDICT_CLIENT, when set, is the directory of an installed copy of the package to test (
// scripts/test.d/clients.sh packs it and unpacks it outside the repository); else this one.
"use strict";

const assert = require("node:assert/strict");
const fs = require("node:fs");
const path = require("node:path");
const { after, before, test } = require("node:test");
const clientDir = process.env.VERDICT_CLIENT || __dirname;
const { VerdictClient, grpcStatus } = require(clientDir);

const policy = JSON.parse(fs.readFileSync(
    path.resolve(__dirname, "..", "..", "deploy", "demo-policy.json"), "utf8"));
const readerToken = policy.agents.find((a) => a.id === "agt_demo_reader").token;

test("the package is self-contained: it loads nothing from outside its own directory", () => {
  const modulePath = require.resolve(clientDir);
  assert.equal(path.dirname(modulePath), path.resolve(clientDir));
  assert.ok(fs.existsSync(path.join(clientDir, "proto", "verdict", "v1", "decision.proto")),
            "the .proto files are not bundled");
  const source = fs.readFileSync(modulePath, "utf8");
  assert.doesNotMatch(source, /"\.\."/, "the client reaches out of its directory");
});

let client;
before(() => {
  assert.ok(process.env.VERDICT_ADDR, "VERDICT_ADDR must name a running verdictd");
  client = new VerdictClient(process.env.VERDICT_ADDR);
});
after(() => client.close());

test("Authorize allows what a permission grants", async () => {
  const decision = await client.authorize({ agentId: "agt_demo_reader", action: "read",
                                            resource: "docs:guide:1", requestId: "node-1" });
  assert.equal(decision.verdict, "VERDICT_ALLOW");
  assert.equal(decision.reason, "REASON_CODE_ALLOWED");
  assert.equal(decision.matched_grant.permission_id, "perm_demo_docs_read");
  assert.equal(decision.request_id, "node-1");
});

test("Authorize: a deny permission overrides the allow", async () => {
  const decision = await client.authorize({ agentId: "agt_demo_reader", action: "read",
                                            resource: "docs:secret:1" });
  assert.equal(decision.verdict, "VERDICT_DENY");
  assert.equal(decision.reason, "REASON_CODE_DENIED_BY_POLICY");
});

test("Authorize by token names the agent", async () => {
  const decision = await client.authorize({ token: readerToken, action: "read",
                                            resource: "docs:guide:1" });
  assert.equal(decision.verdict, "VERDICT_ALLOW");
  assert.equal(decision.agent_id, "agt_demo_reader");
});

test("a malformed request is INVALID_ARGUMENT", async () => {
  await assert.rejects(
      client.authorize({ agentId: "agt_demo_reader", action: "", resource: "docs:guide:1" }),
      (error) => error.code === grpcStatus.INVALID_ARGUMENT);
});

test("ValidateToken names the agent and its permissions", async () => {
  const answer = await client.validateToken(readerToken);
  assert.equal(answer.valid, true);
  assert.equal(answer.agent.id, "agt_demo_reader");
  assert.ok(answer.permissions.some((p) => p.grant.permission_id === "perm_demo_docs_read"));
});

test("ValidateToken answers invalid without an error", async () => {
  const answer = await client.validateToken("vdt_" + "A".repeat(43));
  assert.equal(answer.valid, false);
  assert.equal(answer.reason, "REASON_CODE_TOKEN_INVALID");
});

test("Simulate explains the decision with a trace", async () => {
  const simulated = await client.simulate({ agentId: "agt_demo_reader", action: "read",
                                            resource: "docs:secret:1" });
  assert.equal(simulated.decision.verdict, "VERDICT_DENY");
  assert.equal(simulated.decision.reason, "REASON_CODE_DENIED_BY_POLICY");
  assert.ok(simulated.trace.stages.length > 0);
  assert.ok(simulated.trace.grants.length > 0);
});

test("Simulate with a what-if permission allows without writing it", async () => {
  const whatIf = { extra_permissions: [{ resource: "reports:*", actions: ["read"],
                                         effect: "EFFECT_ALLOW" }] };
  const simulated = await client.simulate({ agentId: "agt_demo_reader", action: "read",
                                            resource: "reports:q3" }, whatIf);
  assert.equal(simulated.decision.verdict, "VERDICT_ALLOW");
  const real = await client.authorize({ agentId: "agt_demo_reader", action: "read",
                                        resource: "reports:q3" });
  assert.equal(real.verdict, "VERDICT_DENY");
  assert.equal(real.reason, "REASON_CODE_NO_MATCHING_PERMISSION");
});
