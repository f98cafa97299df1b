// Strict checks of deploy/'s objects: an unknown (for example misspelt) field is an error, where
// the kubernetes-models validators (JSON schemas without additionalProperties: false) let it
// through. What is checked, and how:
//   - Kubernetes and Istio CRD objects (Deployment, Service, AuthorizationPolicy, ServiceEntry,
//     ...): TypeScript's excess-property check against the interfaces kubernetes-models and
//     @kubernetes-models/istio generate from the OpenAPI schemas: every object literal, however
//     deep, may hold only fields its type declares (and values of the declared types).
//   - IstioOperator: its published schema has no spec at all, so the part verdict uses (the
//     meshConfig extension provider) is checked here against the fields of Istio's MeshConfig
//     proto (ISTIO_FIELDS); the rest of the spec is not checked.
//   - Envoy's bootstrap: no schema package exists for it; every message verdict's envoy.yaml uses
//     is checked here against its Envoy v3 proto fields (ENVOY_FIELDS); the contents of a
//     message type not listed (there is none today) would not be checked.
"use strict";

const childProcess = require("node:child_process");
const fs = require("node:fs");
const os = require("node:os");
const path = require("node:path");

// apiVersion/kind -> [module, interface].
const TYPES = {
  "v1/PersistentVolumeClaim": ["kubernetes-models/v1/PersistentVolumeClaim",
                               "IPersistentVolumeClaim"],
  "v1/Service": ["kubernetes-models/v1/Service", "IService"],
  "v1/ConfigMap": ["kubernetes-models/v1/ConfigMap", "IConfigMap"],
  "apps/v1/Deployment": ["kubernetes-models/apps/v1/Deployment", "IDeployment"],
  "networking.k8s.io/v1/NetworkPolicy": ["kubernetes-models/networking.k8s.io/v1/NetworkPolicy",
                                         "INetworkPolicy"],
  "security.istio.io/v1/AuthorizationPolicy": [
    "@kubernetes-models/istio/security.istio.io/v1/AuthorizationPolicy", "IAuthorizationPolicy"],
  "networking.istio.io/v1beta1/ServiceEntry": [
    "@kubernetes-models/istio/networking.istio.io/v1beta1/ServiceEntry", "IServiceEntry"],
  "install.istio.io/v1alpha1/IstioOperator": [
    "@kubernetes-models/istio/install.istio.io/v1alpha1/IstioOperator", "IIstioOperator"],
};

// Checks every {where, object} with TypeScript; returns one message per problem, naming the
// object (`where`) and the field. Runs tsc once for all of them.
function typeCheckObjects(items) {
  const problems = [];
  const lines = [];
  const owners = [];  // line number (1-based) -> index into items
  items.forEach((item, index) => {
    const key = `${item.object.apiVersion}/${item.object.kind}`;
    const type = TYPES[key];
    if (!type) {
      problems.push(`${item.where}: no schema known for ${key}`);
      return;
    }
    let object = item.object;
    if (key === "install.istio.io/v1alpha1/IstioOperator") {
      // Its type has no spec: the spec is checked by checkIstioOperator instead.
      object = Object.fromEntries(Object.entries(object).filter(([k]) => k !== "spec"));
    }
    const text = `const object${index}: import(${JSON.stringify(type[0])}).${type[1]} = ` +
        `${JSON.stringify(object, null, 1)};`;
    for (const line of text.split("\n")) {
      lines.push(line);
      owners.push(index);
    }
  });
  if (lines.length === 0) return problems;

  // Inside deploy/tests, so that the generated file resolves node_modules.
  const dir = fs.mkdtempSync(path.join(__dirname, ".strict-check-"));
  try {
    const file = path.join(dir, "objects.ts");
    fs.writeFileSync(file, `export {};\n${lines.join("\n")}\n`);
    const tsc = require.resolve("typescript/bin/tsc");
    const result = childProcess.spawnSync(process.execPath, [
      tsc, "--noEmit", "--strict", "--skipLibCheck", "--target", "es2020", "--module",
      "commonjs", "--moduleResolution", "node", "--pretty", "false", file,
    ], {encoding: "utf8"});
    const output = `${result.stdout}${result.stderr}`;
    const before = problems.length;
    for (const line of output.split("\n")) {
      const match = /objects\.ts\((\d+),\d+\): error (TS\d+: .*)$/.exec(line);
      if (!match) continue;
      const owner = owners[Number(match[1]) - 2];  // line 1 is "export {};"
      const where = owner === undefined ? "objects.ts" : items[owner].where;
      problems.push(`${where}: ${match[2]}`);
    }
    // tsc refused to run (a bad option, a missing package): that is no pass either.
    if (result.status !== 0 && problems.length === before) {
      problems.push(`tsc failed: ${output || result.error}`);
    }
  } finally {
    fs.rmSync(dir, {recursive: true, force: true});
  }
  return problems;
}

// Fields of Istio's MeshConfig.ExtensionProvider and of the gRPC ext_authz provider
// (istio.io/api mesh/v1alpha1/config.proto, Istio 1.24), in their JSON spelling.
const ISTIO_FIELDS = {
  IstioOperator: ["apiVersion", "kind", "metadata", "spec"],
  IstioOperatorSpec: ["profile", "installPackagePath", "hub", "tag", "namespace", "revision",
                      "compatibilityVersion", "meshConfig", "components", "values",
                      "unvalidatedValues"],
  ExtensionProvider: ["name", "envoyExtAuthzHttp", "envoyExtAuthzGrpc", "zipkin", "lightstep",
                      "datadog", "stackdriver", "opencensus", "skywalking", "opentelemetry",
                      "prometheus", "envoyFileAccessLog", "envoyHttpAls", "envoyTcpAls",
                      "envoyOtelAls", "sds"],
  EnvoyExternalAuthorizationGrpcProvider: ["service", "port", "timeout", "failOpen",
                                           "clearRouteCache", "statusOnError",
                                           "includeRequestBodyInCheck"],
};

function unknownKeys(object, allowed, where, problems) {
  if (object === null || typeof object !== "object" || Array.isArray(object)) {
    problems.push(`${where}: expected an object`);
    return;
  }
  for (const key of Object.keys(object)) {
    if (!allowed.includes(key)) problems.push(`${where}: unknown field "${key}"`);
  }
}

function checkIstioOperator(operator, where) {
  const problems = [];
  unknownKeys(operator, ISTIO_FIELDS.IstioOperator, where, problems);
  if (!operator.spec) return problems;
  unknownKeys(operator.spec, ISTIO_FIELDS.IstioOperatorSpec, `${where}.spec`, problems);
  const providers = (operator.spec.meshConfig || {}).extensionProviders || [];
  providers.forEach((provider, i) => {
    const at = `${where}.spec.meshConfig.extensionProviders[${i}]`;
    unknownKeys(provider, ISTIO_FIELDS.ExtensionProvider, at, problems);
    if (provider.envoyExtAuthzGrpc !== undefined) {
      const grpc = provider.envoyExtAuthzGrpc;
      unknownKeys(grpc, ISTIO_FIELDS.EnvoyExternalAuthorizationGrpcProvider,
                  `${at}.envoyExtAuthzGrpc`, problems);
      for (const flag of ["failOpen", "clearRouteCache"]) {
        if (grpc[flag] !== undefined && typeof grpc[flag] !== "boolean") {
          problems.push(`${at}.envoyExtAuthzGrpc.${flag}: not a boolean`);
        }
      }
      if (grpc.statusOnError !== undefined && !/^[1-5][0-9][0-9]$/.test(grpc.statusOnError)) {
        problems.push(`${at}.envoyExtAuthzGrpc.statusOnError: an HTTP status as a string`);
      }
    }
  });
  return problems;
}

// Envoy v3 messages used by deploy/envoy/envoy.yaml: message -> {field: message or null}. A
// field mapped to a message is checked recursively (arrays element by element); null means a
// scalar, a map or a message not descended into. Typed configs are dispatched on "@type".
const ENVOY_FIELDS = {
  Bootstrap: {node: null, static_resources: "StaticResources", dynamic_resources: null,
              cluster_manager: null, hds_config: null, flags_path: null, stats_sinks: null,
              stats_config: null, stats_flush_interval: null, watchdog: null, watchdogs: null,
              tracing: null, layered_runtime: null, admin: "Admin", overload_manager: null,
              enable_dispatcher_stats: null, header_prefix: null, stats_server_version_override: null,
              use_tcp_for_dns_lookups: null, bootstrap_extensions: null,
              fatal_actions: null, default_socket_interface: null, inline_headers: null,
              typed_dns_resolver_config: null, default_regex_engine: null,
              application_log_config: null},
  Admin: {access_log: null, access_log_path: null, profile_path: null, address: "Address",
          socket_options: null, ignore_global_conn_limit: null},
  StaticResources: {listeners: "Listener", clusters: "Cluster", secrets: null},
  Address: {socket_address: "SocketAddress", pipe: null, envoy_internal_address: null},
  SocketAddress: {protocol: null, address: null, port_value: null, named_port: null,
                  resolver_name: null, ipv4_compat: null, network_namespace_filepath: null},
  Listener: {name: null, address: "Address", additional_addresses: null, stat_prefix: null,
             filter_chains: "FilterChain", filter_chain_matcher: null,
             use_original_dst: null, default_filter_chain: "FilterChain",
             per_connection_buffer_limit_bytes: null, metadata: null, drain_type: null,
             listener_filters: null, listener_filters_timeout: null,
             continue_on_listener_filters_timeout: null, transparent: null, freebind: null,
             socket_options: null, tcp_fast_open_queue_length: null, traffic_direction: null,
             udp_listener_config: null, api_listener: null, connection_balance_config: null,
             reuse_port: null, enable_reuse_port: null, access_log: null,
             tcp_backlog_size: null, max_connections_to_accept_per_socket_event: null,
             bind_to_port: null, internal_listener: null, enable_mptcp: null,
             ignore_global_conn_limit: null, bypass_overload_manager: null},
  FilterChain: {filter_chain_match: null, filters: "Filter", use_proxy_proto: null,
                metadata: null, transport_socket: null, transport_socket_connect_timeout: null,
                name: null},
  Filter: {name: null, typed_config: "TypedConfig", config_discovery: null},
  HttpFilter: {name: null, typed_config: "TypedConfig", config_discovery: null,
               is_optional: null, disabled: null},
  HttpConnectionManager: {
    "@type": null, codec_type: null, stat_prefix: null, rds: null, route_config: "RouteConfiguration",
    scoped_routes: null, http_filters: "HttpFilter", add_user_agent: null, tracing: null,
    common_http_protocol_options: null, http1_safe_max_connection_duration: null,
    http_protocol_options: null, http2_protocol_options: null, http3_protocol_options: null,
    server_name: null, server_header_transformation: null, scheme_header_transformation: null,
    max_request_headers_kb: null, stream_idle_timeout: null, request_timeout: null,
    request_headers_timeout: null, drain_timeout: null, delayed_close_timeout: null,
    access_log: null, access_log_flush_interval: null, flush_access_log_on_new_request: null,
    access_log_options: null, use_remote_address: null, xff_num_trusted_hops: null,
    original_ip_detection_extensions: null, early_header_mutation_extensions: null,
    internal_address_config: null, skip_xff_append: null, via: null, generate_request_id: null,
    preserve_external_request_id: null, always_set_request_id_in_response: null,
    forward_client_cert_details: null, set_current_client_cert_details: null,
    proxy_100_continue: null, represent_ipv4_remote_address_as_ipv4_mapped_ipv6: null,
    upgrade_configs: null, normalize_path: null, merge_slashes: null,
    path_with_escaped_slashes_action: null, request_id_extension: null,
    local_reply_config: null, strip_matching_host_port: null, strip_any_host_port: null,
    stream_error_on_invalid_http_message: null, path_normalization_options: null,
    strip_trailing_host_dot: null, proxy_status_config: null, typed_header_validation_config: null,
    append_x_forwarded_port: null, append_local_overload: null,
    add_proxy_protocol_connection_state: null},
  RouteConfiguration: {name: null, virtual_hosts: "VirtualHost", vhds: null,
                       internal_only_headers: null, response_headers_to_add: null,
                       response_headers_to_remove: null, request_headers_to_add: null,
                       request_headers_to_remove: null, most_specific_header_mutations_wins: null,
                       validate_clusters: null, max_direct_response_body_size_bytes: null,
                       cluster_specifier_plugins: null, request_mirror_policies: null,
                       ignore_port_in_host_matching: null,
                       ignore_path_parameters_in_path_matching: null,
                       typed_per_filter_config: null, metadata: null},
  VirtualHost: {name: null, domains: null, routes: "Route", matcher: null, require_tls: null,
                virtual_clusters: null, rate_limits: null, request_headers_to_add: null,
                request_headers_to_remove: null, response_headers_to_add: null,
                response_headers_to_remove: null, cors: null, typed_per_filter_config: null,
                include_request_attempt_count: null, include_attempt_count_in_response: null,
                retry_policy: null, retry_policy_typed_config: null, hedge_policy: null,
                include_is_timeout_retry_header: null,
                per_request_buffer_limit_bytes: null, request_mirror_policies: null,
                metadata: null},
  Route: {name: null, match: "RouteMatch", route: "RouteAction", redirect: null,
          direct_response: null, filter_action: null, non_forwarding_action: null,
          metadata: null, decorator: null, typed_per_filter_config: null,
          request_headers_to_add: null, request_headers_to_remove: null,
          response_headers_to_add: null, response_headers_to_remove: null, tracing: null,
          per_request_buffer_limit_bytes: null, stat_prefix: null},
  RouteMatch: {prefix: null, path: null, safe_regex: null, connect_matcher: null,
               path_separated_prefix: null, path_match_policy: null, case_sensitive: null,
               runtime_fraction: null, headers: null, query_parameters: null, grpc: null,
               tls_context: null, dynamic_metadata: null, filter_state: null},
  RouteAction: {cluster: null, cluster_header: null, weighted_clusters: null,
                cluster_specifier_plugin: null, inline_cluster_specifier_plugin: null,
                cluster_not_found_response_code: null, metadata_match: null,
                prefix_rewrite: null, regex_rewrite: null, path_rewrite_policy: null,
                host_rewrite_literal: null, auto_host_rewrite: null, host_rewrite_header: null,
                host_rewrite_path_regex: null, append_x_forwarded_host: null, timeout: null,
                idle_timeout: null, early_data_policy: null, retry_policy: null,
                retry_policy_typed_config: null, request_mirror_policies: null, priority: null,
                rate_limits: null, include_vh_rate_limits: null, hash_policy: null, cors: null,
                max_grpc_timeout: null, grpc_timeout_offset: null, upgrade_configs: null,
                internal_redirect_policy: null, internal_redirect_action: null,
                max_internal_redirects: null, hedge_policy: null, max_stream_duration: null},
  ExtAuthz: {"@type": null, grpc_service: "GrpcService", http_service: null,
             transport_api_version: null, failure_mode_allow: null,
             failure_mode_allow_header_add: null, with_request_body: null,
             clear_route_cache: null, status_on_error: "HttpStatus", validate_mutations: null,
             metadata_context_namespaces: null, typed_metadata_context_namespaces: null,
             route_metadata_context_namespaces: null,
             route_typed_metadata_context_namespaces: null, filter_enabled: null,
             filter_enabled_metadata: null, deny_at_disable: null, include_peer_certificate: null,
             stat_prefix: null, bootstrap_metadata_labels_key: null, allowed_headers: null,
             disallowed_headers: null, include_tls_session: null,
             charge_cluster_response_stats: null, encode_raw_headers: null,
             decoder_header_mutation_rules: null, enable_dynamic_metadata_ingestion: null,
             filter_metadata: null, emit_filter_state_stats: null, max_denied_response_body_bytes: null},
  GrpcService: {envoy_grpc: "EnvoyGrpc", google_grpc: null, timeout: null,
                initial_metadata: null, retry_policy: null},
  EnvoyGrpc: {cluster_name: null, authority: null, retry_policy: null,
              max_receive_message_length: null, skip_envoy_headers: null},
  HttpStatus: {code: null},
  Router: {"@type": null, dynamic_stats: null, start_child_span: null, upstream_log: null,
           upstream_log_options: null, suppress_envoy_headers: null, strict_check_headers: null,
           respect_expected_rq_timeout: null, suppress_grpc_request_failure_code_stats: null,
           upstream_http_filters: null},
  Cluster: {name: null, alt_stat_name: null, type: null, cluster_type: null,
            eds_cluster_config: null, connect_timeout: null,
            per_connection_buffer_limit_bytes: null, lb_policy: null,
            load_assignment: "ClusterLoadAssignment", health_checks: null,
            max_requests_per_connection: null, circuit_breakers: null,
            upstream_http_protocol_options: null, common_http_protocol_options: null,
            http_protocol_options: null, http2_protocol_options: null,
            typed_extension_protocol_options: "ExtensionProtocolOptions",
            dns_refresh_rate: null, dns_failure_refresh_rate: null, respect_dns_ttl: null,
            dns_lookup_family: null, dns_resolvers: null, use_tcp_for_dns_lookups: null,
            dns_resolution_config: null, typed_dns_resolver_config: null,
            wait_for_warm_on_init: null, outlier_detection: null, cleanup_interval: null,
            upstream_bind_config: null, lb_subset_config: null, ring_hash_lb_config: null,
            maglev_lb_config: null, original_dst_lb_config: null, least_request_lb_config: null,
            round_robin_lb_config: null, common_lb_config: null, transport_socket: null,
            metadata: null, protocol_selection: null, upstream_connection_options: null,
            close_connections_on_host_health_failure: null,
            ignore_health_on_host_removal: null, filters: null, load_balancing_policy: null,
            lrs_server: null, track_timeout_budgets: null, upstream_config: null,
            track_cluster_stats: null, preconnect_policy: null,
            connection_pool_per_downstream_connection: null, transport_socket_matches: null},
  ClusterLoadAssignment: {cluster_name: null, endpoints: "LocalityLbEndpoints",
                          named_endpoints: null, policy: null},
  LocalityLbEndpoints: {locality: null, metadata: null, lb_endpoints: "LbEndpoint",
                        load_balancer_endpoints: null, leds_cluster_locality_config: null,
                        load_balancing_weight: null, priority: null, proximity: null},
  LbEndpoint: {endpoint: "Endpoint", endpoint_name: null, health_status: null, metadata: null,
               load_balancing_weight: null},
  Endpoint: {address: "Address", health_check_config: null, hostname: null,
             additional_addresses: null},
  HttpProtocolOptions: {"@type": null, common_http_protocol_options: null,
                        upstream_http_protocol_options: null,
                        explicit_http_config: "ExplicitHttpConfig", use_downstream_protocol_config: null,
                        auto_config: null, http_filters: null, header_validation_config: null},
  ExplicitHttpConfig: {http_protocol_options: null, http2_protocol_options: "Http2ProtocolOptions",
                       http3_protocol_options: null},
  Http2ProtocolOptions: {hpack_table_size: null, max_concurrent_streams: null,
                         initial_stream_window_size: null, initial_connection_window_size: null,
                         allow_connect: null, allow_metadata: null, max_outbound_frames: null,
                         max_outbound_control_frames: null,
                         max_consecutive_inbound_frames_with_empty_payload: null,
                         max_inbound_priority_frames_per_stream: null,
                         max_inbound_window_update_frames_per_data_frame_sent: null,
                         stream_error_on_invalid_http_messaging: null,
                         override_stream_error_on_invalid_http_message: null,
                         custom_settings_parameters: null, connection_keepalive: null,
                         use_oghttp2_codec: null, max_metadata_size: null},
};

const TYPED_CONFIGS = {
  "type.googleapis.com/envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager":
      "HttpConnectionManager",
  "type.googleapis.com/envoy.extensions.filters.http.ext_authz.v3.ExtAuthz": "ExtAuthz",
  "type.googleapis.com/envoy.extensions.filters.http.router.v3.Router": "Router",
  "type.googleapis.com/envoy.extensions.upstreams.http.v3.HttpProtocolOptions":
      "HttpProtocolOptions",
};

function checkEnvoyMessage(value, message, where, problems) {
  if (Array.isArray(value)) {
    value.forEach((element, i) => checkEnvoyMessage(element, message, `${where}[${i}]`, problems));
    return;
  }
  if (message === "TypedConfig") {
    const type = value && value["@type"];
    if (!TYPED_CONFIGS[type]) {
      problems.push(`${where}: no field list for @type ${type}`);
      return;
    }
    message = TYPED_CONFIGS[type];
  }
  if (message === "ExtensionProtocolOptions") {  // a map: extension name -> typed config
    for (const [name, config] of Object.entries(value || {})) {
      checkEnvoyMessage(config, "TypedConfig", `${where}.${name}`, problems);
    }
    return;
  }
  const fields = ENVOY_FIELDS[message];
  if (value === null || typeof value !== "object") {
    problems.push(`${where}: expected a ${message}`);
    return;
  }
  for (const [key, child] of Object.entries(value)) {
    if (!(key in fields)) {
      problems.push(`${where}: unknown field "${key}" in ${message}`);
    } else if (fields[key] !== null) {
      checkEnvoyMessage(child, fields[key], `${where}.${key}`, problems);
    }
  }
}

function checkEnvoyBootstrap(config, where) {
  const problems = [];
  checkEnvoyMessage(config, "Bootstrap", where, problems);
  return problems;
}

module.exports = {typeCheckObjects, checkIstioOperator, checkEnvoyBootstrap};
