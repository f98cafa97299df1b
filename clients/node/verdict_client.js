// A small Node.js client for verdict's DecisionService, loading verdict/v1/decision.proto from
// the package's own proto/ directory at run time (@grpc/proto-loader; bundle-protos.js puts it
// there) and calling it with @grpc/grpc-js.
//
//   const { VerdictClient } = require("verdict-client");
//   const client = new VerdictClient("127.0.0.1:50051");
//   const decision = await client.authorize({ agentId: "agt_demo_reader", action: "read",
//                                             resource: "docs:guide:1" });
//   if (decision.verdict === "VERDICT_ALLOW") { ... }
//   client.close();
//
// Enums arrive as the names decision.proto gives them ("VERDICT_ALLOW",
// "REASON_CODE_DENIED_BY_POLICY"; before 0.2.0 "ALLOW", "DENIED_BY_POLICY"). A call that fails
// rejects with the gRPC error (code INVALID_ARGUMENT, UNAVAILABLE, ...): treat it as a deny.
"use strict";

const path = require("node:path");
const grpc = require("@grpc/grpc-js");
const protoLoader = require("@grpc/proto-loader");

const PROTO_ROOT = path.join(__dirname, "proto");
const DEFAULT_TIMEOUT_MS = 2000;

function loadDecisionService() {
  const definition = protoLoader.loadSync("verdict/v1/decision.proto", {
    includeDirs: [PROTO_ROOT],
    keepCase: true,
    enums: String,
    longs: String,
    defaults: true,
    oneofs: true,
  });
  return grpc.loadPackageDefinition(definition).verdict.v1.DecisionService;
}

function authorizeRequest({ agentId, token, action, resource, clientIp = "", argumentsJson = "",
                            requestId = "" }) {
  if ((agentId === undefined) === (token === undefined)) {
    throw new Error("give exactly one of agentId and token");
  }
  return {
    subject: agentId !== undefined ? { agent_id: agentId } : { token },
    action,
    resource,
    context: { client_ip: clientIp, arguments_json: argumentsJson, request_id: requestId },
  };
}

class VerdictClient {
  constructor(target, { timeoutMs = DEFAULT_TIMEOUT_MS } = {}) {
    const DecisionService = loadDecisionService();
    this.stub = new DecisionService(target, grpc.credentials.createInsecure());
    this.timeoutMs = timeoutMs;
  }

  close() {
    this.stub.close();
  }

  call(method, request) {
    return new Promise((resolve, reject) => {
      const deadline = new Date(Date.now() + this.timeoutMs);
      this.stub[method](request, { deadline }, (error, response) => {
        if (error) reject(error);
        else resolve(response);
      });
    });
  }

  // An AuthorizeResponse.
  authorize(request) {
    return this.call("Authorize", authorizeRequest(request));
  }

  // A ValidateTokenResponse: an invalid token is valid=false with a reason, not an error.
  validateToken(token) {
    return this.call("ValidateToken", { token });
  }

  // A SimulateResponse (decision and trace); nothing is written. whatIf: a WhatIf message.
  simulate(request, whatIf = undefined) {
    return this.call("Simulate", { request: authorizeRequest(request), what_if: whatIf });
  }
}

module.exports = { VerdictClient, grpcStatus: grpc.status };
