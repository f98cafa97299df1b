// Copies the .proto files the client loads into ./proto, so that the package carries them and
// works wherever it is installed or copied. npm runs it (the "prepare" script) on `npm ci` or
// `npm install` here and before `npm pack`; ./proto is generated, not committed.
"use strict";

const fs = require("node:fs");
const path = require("node:path");

// What verdict_client.js loads; google/protobuf/*.proto come with @grpc/proto-loader.
const PROTOS = ["verdict/v1/decision.proto"];

const source = path.resolve(__dirname, "..", "..", "proto");
const target = path.join(__dirname, "proto");
for (const proto of PROTOS) {
  fs.mkdirSync(path.dirname(path.join(target, proto)), { recursive: true });
  fs.copyFileSync(path.join(source, proto), path.join(target, proto));
}
