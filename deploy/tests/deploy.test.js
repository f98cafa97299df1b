// Checks deploy/ without a cluster: every Kubernetes and Istio object validates against its
// schema (kubernetes-models) and holds no field its schema does not know (strict-schema.js:
// a misspelt field fails), the sidecar pattern holds together (the ports, probes, volumes and
// names that must agree do agree), Envoy's configuration sends every request to verdict over
// gRPC and holds only fields Envoy knows, and the Dockerfile builds verdict from a clone and
// ships a runtime-only, non-root image.
//
//   cd deploy/tests && npm ci && node --test
// (scripts/test.d/deploy.sh also hands in VERDICT_RUNTIME_PACKAGES: the Debian packages of the
// shared libraries the built binaries link, from ldd.)
"use strict";

const assert = require("node:assert/strict");
const fs = require("node:fs");
const path = require("node:path");
const { test } = require("node:test");
const YAML = require("yaml");
const {checkEnvoyBootstrap, checkIstioOperator, typeCheckObjects} = require("./strict-schema");

const deployDir = path.resolve(__dirname, "..");

const MODELS = {
  "v1/PersistentVolumeClaim": () => require("kubernetes-models/v1/PersistentVolumeClaim"),
  "v1/Service": () => require("kubernetes-models/v1/Service"),
  "v1/ConfigMap": () => require("kubernetes-models/v1/ConfigMap"),
  "apps/v1/Deployment": () => require("kubernetes-models/apps/v1/Deployment"),
  "networking.k8s.io/v1/NetworkPolicy": () =>
    require("kubernetes-models/networking.k8s.io/v1/NetworkPolicy"),
  "security.istio.io/v1/AuthorizationPolicy": () =>
    require("@kubernetes-models/istio/security.istio.io/v1/AuthorizationPolicy"),
  "networking.istio.io/v1beta1/ServiceEntry": () =>
    require("@kubernetes-models/istio/networking.istio.io/v1beta1/ServiceEntry"),
  "install.istio.io/v1alpha1/IstioOperator": () =>
    require("@kubernetes-models/istio/install.istio.io/v1alpha1/IstioOperator"),
};

function readYamlDocuments(relativePath) {
  const text = fs.readFileSync(path.join(deployDir, relativePath), "utf8");
  return YAML.parseAllDocuments(text).map((document) => {
    assert.equal(document.errors.length, 0, `${relativePath}: ${document.errors.join("; ")}`);
    return document.toJS();
  }).filter((object) => object !== null);
}

function manifestFiles() {
  const files = [];
  for (const dir of ["k8s", "istio"]) {
    for (const name of fs.readdirSync(path.join(deployDir, dir)).sort()) {
      if (name.endsWith(".yaml")) files.push(path.join(dir, name));
    }
  }
  return files;
}

// Throws with the schema's complaints when `object` is not a valid instance of its kind.
function validateAgainstSchema(object) {
  const key = `${object.apiVersion}/${object.kind}`;
  assert.ok(MODELS[key], `no schema known for ${key}`);
  const module = MODELS[key]();
  const Model = module[object.kind];
  new Model(object).validate();
}

function findObject(objects, kind, name) {
  const found = objects.find((o) => o.kind === kind && (!name || o.metadata.name === name));
  assert.ok(found, `no ${kind} ${name || ""}`);
  return found;
}

function containerNamed(deployment, name) {
  const container = deployment.spec.template.spec.containers.find((c) => c.name === name);
  assert.ok(container, `container ${name} missing from ${deployment.metadata.name}`);
  return container;
}

function flagValue(container, flag) {
  const prefix = `--${flag}=`;
  const arg = (container.args || []).find((a) => a.startsWith(prefix));
  return arg === undefined ? undefined : arg.slice(prefix.length);
}

function portOf(hostPort) {
  return Number(hostPort.slice(hostPort.lastIndexOf(":") + 1));
}

// What every verdict container must have, in the plain sidecar and in the Istio example.
function checkVerdictContainer(deployment) {
  const verdict = containerNamed(deployment, "verdict");
  const listen = flagValue(verdict, "listen");
  assert.ok(listen, "verdict has no --listen");
  const grpcPort = portOf(listen);
  for (const probe of ["livenessProbe", "readinessProbe"]) {
    assert.ok(verdict[probe] && verdict[probe].grpc, `verdict's ${probe} is not a gRPC probe`);
    assert.equal(verdict[probe].grpc.port, grpcPort, `verdict's ${probe} probes another port`);
  }
  // The database lives on a volume, not in the container's (read-only) file system.
  const db = flagValue(verdict, "db");
  assert.ok(db, "verdict has no --db");
  const mount = (verdict.volumeMounts || []).find((m) => db.startsWith(m.mountPath + "/"));
  assert.ok(mount, `no volume mounted where the database ${db} lives`);
  assert.notEqual(mount.readOnly, true, "the database volume is read-only");
  const volume = deployment.spec.template.spec.volumes.find((v) => v.name === mount.name);
  assert.ok(volume && (volume.persistentVolumeClaim || volume.emptyDir),
            "the database volume is neither a claim nor an emptyDir");
  for (const flag of ["seed", "policy_file", "admin_secret_file", "ext_authz_config"]) {
    const file = flagValue(verdict, flag);
    if (file === undefined) continue;
    assert.ok((verdict.volumeMounts || []).some((m) => file.startsWith(m.mountPath + "/")),
              `nothing mounted where --${flag}=${file} lives`);
  }
  assert.ok(flagValue(verdict, "admin_secret_file"), "no admin credential for the CLI");
  // The hash-chained decision log is on: `verdict log query` and `log verify` have rows.
  assert.ok(verdict.args.includes("--decision_log") || flagValue(verdict, "decision_log") === "true",
            "the decision log is off");
  assert.ok(verdict.securityContext.runAsUser > 0, "verdict runs as root");
  assert.equal(verdict.securityContext.allowPrivilegeEscalation, false);
  return verdict;
}

function checkResources(deployment) {
  for (const container of deployment.spec.template.spec.containers) {
    for (const kind of ["requests", "limits"]) {
      for (const resource of ["cpu", "memory"]) {
        assert.ok(container.resources && container.resources[kind] &&
                      container.resources[kind][resource] !== undefined,
                  `${container.name} has no ${resource} ${kind}`);
      }
    }
  }
  assert.equal(deployment.spec.template.spec.securityContext.runAsNonRoot, true);
}

test("every manifest validates against the Kubernetes and Istio schemas", () => {
  const files = manifestFiles();
  assert.ok(files.length >= 3, `too few manifests: ${files}`);
  for (const file of files) {
    const objects = readYamlDocuments(file);
    assert.ok(objects.length > 0, `${file} is empty`);
    for (const object of objects) {
      try {
        validateAgainstSchema(object);
      } catch (error) {
        assert.fail(`${file}: ${object.kind} ${object.metadata && object.metadata.name}: ` +
                    error.message);
      }
    }
  }
});

// Every Kubernetes and Istio object of the manifests, named for error messages.
function manifestObjects() {
  return manifestFiles().flatMap((file) => readYamlDocuments(file).map((object) => ({
    where: `${file}: ${object.kind} ${object.metadata && object.metadata.name}`,
    object,
  })));
}

test("no manifest holds a field its schema does not know", () => {
  const items = manifestObjects();
  const problems = typeCheckObjects(items);
  for (const {where, object} of items) {
    if (object.kind === "IstioOperator") problems.push(...checkIstioOperator(object, where));
  }
  problems.push(...checkEnvoyBootstrap(readYamlDocuments("envoy/envoy.yaml")[0], "envoy.yaml"));
  assert.deepEqual(problems, []);
});

test("the strict check refuses a misspelt field anywhere", () => {
  const deployment = findObject(readYamlDocuments("k8s/sidecar.yaml"), "Deployment", "docs");
  const misspelt = structuredClone(deployment);
  const verdict = containerNamed(misspelt, "verdict");
  verdict.imagePulPolicy = verdict.imagePullPolicy;
  delete verdict.imagePullPolicy;
  // kubernetes-models' own validation lets it through: that is why the strict check exists.
  validateAgainstSchema(misspelt);
  const policy = findObject(readYamlDocuments("istio/docs.yaml"), "AuthorizationPolicy",
                            "docs-verdict");
  const badPolicy = structuredClone(policy);
  badPolicy.spec.acton = badPolicy.spec.action;
  const problems = typeCheckObjects([{where: "misspelt deployment", object: misspelt},
                                     {where: "misspelt policy", object: badPolicy}]);
  assert.equal(problems.length, 2, problems.join("\n"));
  assert.match(problems[0], /^misspelt deployment: .*'"?imagePulPolicy"?' does not exist/);
  assert.match(problems[1], /^misspelt policy: .*'"?acton"?' does not exist/);

  const operator = readYamlDocuments("istio/extension-provider.yaml")[0];
  const badOperator = structuredClone(operator);
  const grpc = badOperator.spec.meshConfig.extensionProviders[0].envoyExtAuthzGrpc;
  grpc.failOpne = true;
  assert.deepEqual(checkIstioOperator(badOperator, "operator"), [
    'operator.spec.meshConfig.extensionProviders[0].envoyExtAuthzGrpc: unknown field "failOpne"',
  ]);

  const envoy = readYamlDocuments("envoy/envoy.yaml")[0];
  const badEnvoy = structuredClone(envoy);
  const hcm = badEnvoy.static_resources.listeners[0].filter_chains[0].filters[0].typed_config;
  hcm.http_filters[0].typed_config.failure_mode_alow = false;
  badEnvoy.static_resources.clusters[0].conect_timeout = "1s";
  const envoyProblems = checkEnvoyBootstrap(badEnvoy, "envoy.yaml");
  assert.equal(envoyProblems.length, 2, envoyProblems.join("\n"));
  assert.match(envoyProblems.join("\n"), /unknown field "failure_mode_alow" in ExtAuthz/);
  assert.match(envoyProblems.join("\n"), /unknown field "conect_timeout" in Cluster/);
});

test("the schema check refuses broken objects", () => {
  const deployment = findObject(readYamlDocuments("k8s/sidecar.yaml"), "Deployment", "docs");
  const brokenProbe = structuredClone(deployment);
  containerNamed(brokenProbe, "verdict").livenessProbe.grpc.port = "grpc-port";
  assert.throws(() => validateAgainstSchema(brokenProbe));
  const noContainers = structuredClone(deployment);
  delete noContainers.spec.template.spec.containers;
  assert.throws(() => validateAgainstSchema(noContainers));
  const policy = findObject(readYamlDocuments("istio/docs.yaml"), "AuthorizationPolicy",
                            "docs-verdict");
  const badAction = structuredClone(policy);
  badAction.spec.action = "ALLOW_ALL";
  assert.throws(() => validateAgainstSchema(badAction));
});

test("verdict applies its policy from the ConfigMap the pod mounts", () => {
  const objects = readYamlDocuments("k8s/sidecar.yaml");
  const deployment = findObject(objects, "Deployment", "docs");
  const verdict = containerNamed(deployment, "verdict");
  const file = flagValue(verdict, "policy_file");
  assert.ok(file, "verdict has no --policy_file");
  const mount = verdict.volumeMounts.find((m) => file.startsWith(m.mountPath + "/"));
  assert.ok(mount, `nothing mounted where --policy_file=${file} lives`);
  // The whole directory, not a subPath: a subPath mount never sees the ConfigMap's updates.
  assert.equal(mount.subPath, undefined, "a subPath mount is never updated");
  const volume = deployment.spec.template.spec.volumes.find((v) => v.name === mount.name);
  assert.ok(volume.configMap, "the policy volume is not a ConfigMap");
  const configMap = findObject(objects, "ConfigMap", volume.configMap.name);
  const key = file.slice(mount.mountPath.length + 1);
  assert.ok(configMap.data[key], `the ConfigMap ${configMap.metadata.name} has no ${key}`);
  const policy = YAML.parse(configMap.data[key]);
  const mesh = JSON.parse(fs.readFileSync(path.join(deployDir, "mesh-demo-policy.json"), "utf8"));
  const token = mesh.agents[0].token;
  const hash = require("node:crypto").createHash("sha256").update(token).digest("hex");
  assert.equal(policy.agents[0].token_sha256, hash,
               "the walkthrough's token (mesh-demo-policy.json) is the agent's");
});

test("the sidecar pod holds the app, Envoy and verdict, wired to each other", () => {
  const objects = readYamlDocuments("k8s/sidecar.yaml");
  const deployment = findObject(objects, "Deployment", "docs");
  const names = deployment.spec.template.spec.containers.map((c) => c.name).sort();
  assert.deepEqual(names, ["app", "envoy", "verdict"]);
  checkResources(deployment);
  const verdict = checkVerdictContainer(deployment);

  const envoyConfig = readYamlDocuments("envoy/envoy.yaml")[0];
  const verdictEndpoint = clusterEndpoint(envoyConfig, "verdict");
  assert.equal(verdictEndpoint.address, "127.0.0.1", "Envoy reaches verdict off loopback");
  assert.equal(verdictEndpoint.port_value, portOf(flagValue(verdict, "listen")),
               "Envoy's verdict cluster and verdict's --listen disagree on the port");

  const app = containerNamed(deployment, "app");
  const appListen = app.args.find((a) => a.startsWith("-listen="));
  assert.ok(appListen && appListen.includes("127.0.0.1:"), "the app must listen on loopback only");
  assert.equal(clusterEndpoint(envoyConfig, "app").port_value, portOf(appListen));

  const envoy = containerNamed(deployment, "envoy");
  const listenerPort = envoyConfig.static_resources.listeners[0].address.socket_address.port_value;
  assert.ok(envoy.ports.some((p) => p.containerPort === listenerPort),
            "Envoy's container does not expose its listener's port");
  const configPath = envoy.args[envoy.args.indexOf("-c") + 1];
  assert.ok(envoy.volumeMounts.some((m) => configPath.startsWith(m.mountPath + "/")),
            "Envoy's configuration file is not mounted");

  const service = findObject(objects, "Service", "docs");
  assert.ok(service.spec.ports.every((p) => p.targetPort === "http"));
  assert.ok(envoy.ports.some((p) => p.name === "http"), "the Service targets a port Envoy lacks");
  const policy = findObject(objects, "NetworkPolicy", "docs");
  const open = policy.spec.ingress.flatMap((rule) => rule.ports.map((p) => p.port));
  assert.ok(!open.includes(portOf(flagValue(verdict, "listen"))),
            "verdict's gRPC port must not be open to other pods");
});

function clusterEndpoint(envoyConfig, name) {
  const cluster = envoyConfig.static_resources.clusters.find((c) => c.name === name);
  assert.ok(cluster, `Envoy has no cluster ${name}`);
  return cluster.load_assignment.endpoints[0].lb_endpoints[0].endpoint.address.socket_address;
}

test("Envoy asks verdict over gRPC (API v3, HTTP/2) before routing, and fails closed", () => {
  const config = readYamlDocuments("envoy/envoy.yaml")[0];
  const listeners = config.static_resources.listeners;
  assert.equal(listeners.length, 1);
  const hcm = listeners[0].filter_chains[0].filters.find(
      (f) => f.name === "envoy.filters.network.http_connection_manager");
  assert.ok(hcm, "no HTTP connection manager");
  const manager = hcm.typed_config;
  assert.match(manager["@type"], /http_connection_manager\.v3\.HttpConnectionManager$/);
  assert.equal(manager.normalize_path, true, "paths must be normalised before verdict sees them");

  const filters = manager.http_filters;
  const extAuthzIndex = filters.findIndex((f) => f.name === "envoy.filters.http.ext_authz");
  assert.ok(extAuthzIndex >= 0, "no ext_authz filter");
  assert.equal(filters[filters.length - 1].name, "envoy.filters.http.router",
               "the router must come last");
  assert.ok(extAuthzIndex < filters.length - 1, "ext_authz must run before the router");
  const extAuthz = filters[extAuthzIndex].typed_config;
  assert.equal(extAuthz["@type"],
               "type.googleapis.com/envoy.extensions.filters.http.ext_authz.v3.ExtAuthz");
  assert.equal(extAuthz.transport_api_version, "V3");
  assert.equal(extAuthz.failure_mode_allow, false, "ext_authz must fail closed");
  const clusterName = extAuthz.grpc_service.envoy_grpc.cluster_name;
  assert.equal(clusterName, "verdict");

  const cluster = config.static_resources.clusters.find((c) => c.name === clusterName);
  assert.ok(cluster, `ext_authz names a cluster that does not exist: ${clusterName}`);
  const options = cluster.typed_extension_protocol_options &&
      cluster.typed_extension_protocol_options[
          "envoy.extensions.upstreams.http.v3.HttpProtocolOptions"];
  assert.ok(options, "the verdict cluster has no HTTP protocol options");
  assert.equal(options["@type"],
               "type.googleapis.com/envoy.extensions.upstreams.http.v3.HttpProtocolOptions");
  assert.ok(options.explicit_http_config && options.explicit_http_config.http2_protocol_options,
            "gRPC to verdict needs HTTP/2");

  const routes = manager.route_config.virtual_hosts.flatMap((v) => v.routes);
  for (const route of routes) {
    assert.ok(config.static_resources.clusters.some((c) => c.name === route.route.cluster),
              `a route targets a missing cluster ${route.route.cluster}`);
  }
});

test("Istio calls the pod's own verdict as a CUSTOM provider", () => {
  const operator = readYamlDocuments("istio/extension-provider.yaml")[0];
  const providers = operator.spec.meshConfig.extensionProviders;
  assert.ok(Array.isArray(providers) && providers.length === 1);
  const provider = providers[0];
  assert.ok(provider.envoyExtAuthzGrpc, "the provider is not a gRPC ext_authz provider");
  assert.notEqual(provider.envoyExtAuthzGrpc.failOpen, true, "the provider must fail closed");
  // verdict unreachable is 503, as deploy/README.md promises, not Istio's default 403.
  assert.equal(provider.envoyExtAuthzGrpc.statusOnError, "503");

  const objects = readYamlDocuments("istio/docs.yaml");
  const custom = objects.find((o) => o.kind === "AuthorizationPolicy" &&
                                     o.spec.action === "CUSTOM");
  assert.ok(custom, "no CUSTOM AuthorizationPolicy");
  assert.equal(custom.spec.provider.name, provider.name);
  assert.ok(custom.spec.rules.length > 0, "a CUSTOM policy without rules applies to nothing");

  const entry = findObject(objects, "ServiceEntry");
  assert.ok(entry.spec.hosts.includes(provider.envoyExtAuthzGrpc.service));
  assert.equal(entry.spec.endpoints[0].address, "127.0.0.1");
  assert.ok(entry.spec.ports.some((p) => p.number === provider.envoyExtAuthzGrpc.port &&
                                         p.protocol === "GRPC"));

  const deployment = findObject(objects, "Deployment", "docs");
  checkResources(deployment);
  const verdict = checkVerdictContainer(deployment);
  assert.equal(portOf(flagValue(verdict, "listen")), provider.envoyExtAuthzGrpc.port);
  const app = containerNamed(deployment, "app");
  const guardedPorts = custom.spec.rules.flatMap((r) => r.to.flatMap((t) => t.operation.ports));
  assert.ok(app.ports.every((p) => guardedPorts.includes(String(p.containerPort))),
            "some app port is not behind verdict");
});

// The Dockerfile's instructions, with continuation lines joined and comments dropped, split into
// stages at each FROM.
function dockerStages() {
  const text = fs.readFileSync(path.join(deployDir, "Dockerfile"), "utf8");
  const instructions = text.replace(/\\\n/g, " ").split("\n")
      .map((line) => line.trim()).filter((line) => line && !line.startsWith("#"));
  const stages = [];
  for (const instruction of instructions) {
    if (/^FROM\s/i.test(instruction)) stages.push({from: instruction, instructions: []});
    else stages[stages.length - 1].instructions.push(instruction);
  }
  return stages;
}

// The packages each `apt-get install` names (its words up to the next "&&"), options left out.
function aptPackages(instructions) {
  const packages = [];
  for (const instruction of instructions) {
    for (const match of instruction.matchAll(/apt-get\s+install\s+([^&;]*)/g)) {
      packages.push(...match[1].split(/\s+/).filter((word) => word && !word.startsWith("-")));
    }
  }
  return packages.sort();
}

test("the image builds verdict from a clone with the project's own scripts", () => {
  const stages = dockerStages();
  assert.equal(stages.length, 2, "a build stage and a runtime stage");
  const [build, runtime] = stages;
  assert.equal(build.from, "FROM debian:12 AS build");
  assert.equal(runtime.from, "FROM debian:12-slim");
  const buildSteps = build.instructions.join("\n");
  assert.match(buildSteps, /^COPY \. \/src$/m, "the clone is the build context");
  assert.match(buildSteps, /scripts\/install-deps\.sh/);
  assert.match(buildSteps, /bazel build -c opt \/\/:verdictd \/\/:verdict/);

  // Every COPY source exists: in the clone (the context), or made by the named stage.
  const repo = path.resolve(deployDir, "..");
  for (const stage of stages) {
    for (const copy of stage.instructions.filter((i) => /^COPY\s/i.test(i))) {
      const words = copy.split(/\s+/).slice(1);
      const from = words.find((w) => w.startsWith("--from="));
      const sources = words.filter((w) => !w.startsWith("--")).slice(0, -1);
      assert.ok(sources.length > 0, copy);
      for (const source of sources) {
        if (from === undefined) {
          assert.ok(fs.existsSync(path.join(repo, source)), `${copy}: ${source} is not in the clone`);
        } else {
          assert.equal(from, "--from=build", copy);
          assert.ok(build.instructions.some((i) => i.includes(` ${source}`) &&
                                                   /^RUN\s/.test(i)),
                    `${copy}: the build stage makes no ${source}`);
        }
      }
    }
  }
  // The context leaves out what a build makes (bazel-* links, node_modules).
  const ignored = fs.readFileSync(path.join(repo, ".dockerignore"), "utf8");
  assert.match(ignored, /^bazel-\*$/m);
  assert.match(ignored, /node_modules/);
});

test("the runtime stage is Debian slim with the binaries and their libraries, non-root", () => {
  const runtime = dockerStages()[1];
  const instructions = runtime.instructions;
  const users = instructions.filter((i) => /^USER\s/i.test(i));
  assert.ok(users.length > 0, "no USER: the image would run as root");
  const user = users[users.length - 1].split(/\s+/)[1].split(":")[0];
  assert.ok(user !== "root" && user !== "0", `the image runs as ${user}`);
  const copies = instructions.filter((i) => /^COPY\s/i.test(i));
  assert.deepEqual(copies, ["COPY --from=build /out/verdictd /out/verdict /usr/local/bin/"],
                   "the runtime stage holds the two binaries and nothing else built");
  assert.ok(instructions.some((i) => /^ENTRYPOINT\s.*verdictd/.test(i)));

  const installs = instructions.filter((i) => /apt-get\s+install/.test(i)).join(" ");
  assert.ok(installs.includes("--no-install-recommends"), "recommends would pull in extras");
  assert.match(instructions.join("\n"), /rm -rf \/var\/lib\/apt\/lists/,
               "apt's lists stay in the image");
  const packages = aptPackages(instructions);
  for (const name of packages) {
    assert.ok(!name.endsWith("-dev"), `development package ${name} in the runtime image`);
  }
  // Beyond what the binaries link: libpq5 (loaded at run time for postgresql://) and tzdata.
  const extras = ["libpq5", "tzdata"];
  // In debian:12-slim already: the C and C++ runtimes.
  const inBase = ["libc6", "libgcc-s1", "libstdc++6"];
  const linked = (process.env.VERDICT_RUNTIME_PACKAGES || "").split(/\s+/).filter(Boolean);
  assert.ok(linked.length > 0,
            "VERDICT_RUNTIME_PACKAGES is empty: run scripts/test.d/deploy.sh, which builds the " +
            "binaries and reads their libraries with ldd");
  const expected = [...new Set([...linked.filter((p) => !inBase.includes(p)), ...extras])].sort();
  assert.deepEqual(packages, expected,
                   "the runtime stage's packages are not the binaries' libraries (ldd)");
});

test("the mesh demo policy protects paths and its agent token has the right shape", () => {
  const policy = JSON.parse(fs.readFileSync(path.join(deployDir, "mesh-demo-policy.json"),
                                            "utf8"));
  for (const agent of policy.agents) {
    assert.match(agent.token, /^vdt_[A-Za-z0-9_-]{43}$/);
  }
  assert.ok(policy.permissions.length > 0);
  for (const permission of policy.permissions) {
    assert.ok(permission.resource.startsWith("/"), "mesh requests are matched by path");
    assert.ok(policy.agents.some((a) => a.id === permission.agent_id));
  }
});

// Policy files (README "Policy as code"): every example in the repository, and every policy a
// ConfigMap carries, validates against deploy/policy.schema.json (ajv, draft-07, with formats).
// ajv and ajv-formats come with kubernetes-models (package-lock.json pins them).
function policySchemaValidator() {
  const Ajv = require("ajv");
  const addFormats = require("ajv-formats");
  const ajv = new Ajv({allErrors: true, strict: true, strictTypes: false});
  addFormats(ajv);
  const schema = JSON.parse(fs.readFileSync(path.join(deployDir, "policy.schema.json"), "utf8"));
  return ajv.compile(schema);
}

function examplePolicies() {
  const policies = [];
  for (const name of fs.readdirSync(path.join(deployDir, "policy")).sort()) {
    const text = fs.readFileSync(path.join(deployDir, "policy", name), "utf8");
    if (name.endsWith(".json")) policies.push([`policy/${name}`, JSON.parse(text)]);
    if (name.endsWith(".yaml")) policies.push([`policy/${name}`, YAML.parse(text)]);
  }
  for (const file of manifestFiles()) {
    for (const object of readYamlDocuments(file)) {
      if (object.kind !== "ConfigMap") continue;
      for (const [key, text] of Object.entries(object.data ?? {})) {
        if (/^policy.*\.(yaml|yml|json)$/.test(key)) {
          policies.push([`${file}: ConfigMap ${object.metadata.name}: ${key}`, YAML.parse(text)]);
        }
      }
    }
  }
  return policies;
}

test("every example policy file validates against deploy/policy.schema.json", () => {
  const validate = policySchemaValidator();
  const policies = examplePolicies();
  assert.ok(policies.some(([where]) => where.includes("ConfigMap")),
            "the Kubernetes example mounts its policy from a ConfigMap");
  for (const [where, policy] of policies) {
    assert.ok(validate(policy), `${where}: ${JSON.stringify(validate.errors)}`);
  }
});

test("the policy schema refuses a misspelt field, a token in clear and a bad kind", () => {
  const validate = policySchemaValidator();
  const good = {version: 1, name: "t", agents: [{id: "agt_a", owner: "o", name: "n"}]};
  assert.ok(validate(good), JSON.stringify(validate.errors));
  assert.ok(!validate({...good, agent: []}));
  assert.ok(!validate({...good, agents: [{...good.agents[0], token: "vdt_x"}]}));
  assert.ok(!validate({...good, agents: [{...good.agents[0], kind: "robot"}]}));
  assert.ok(!validate({version: 1, agents: []}), "a name is required");
});
