#include "app/policy_json.h"

#include <cmath>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/time.h"
#include "absl/types/span.h"
#include "common/admin_limits.h"
#include "common/json.h"
#include "crypto/sha256.h"
#include "crypto/token.h"
#include "decision/admin/input_rules.h"
#include "store/policy_encoding.h"

namespace verdict {
namespace {

constexpr int kPolicyVersion = 1;
// %4Y: RFC 3339 years have four digits, 0999 too.
constexpr char kUtcTimeFormat[] = "%4Y-%m-%d%ET%H:%M:%E*SZ";

// What the stores keep and an export writes back the same: whole microseconds of the years 0001
// to 9999 (absl reads "infinite-future" too, and any year or precision).
bool ExportsAsImported(absl::Time time) {
  const absl::CivilSecond civil = absl::ToCivilSecond(time, absl::UTCTimeZone());
  return time != absl::InfiniteFuture() && time != absl::InfinitePast() && civil.year() >= 1 &&
         civil.year() <= 9999 && absl::FromUnixMicros(absl::ToUnixMicros(time)) == time;
}
constexpr size_t kTokenHashHexLength = 64;

absl::Status Invalid(absl::string_view where, absl::string_view problem) {
  return absl::InvalidArgumentError(absl::StrCat(where, ": ", problem));
}

// Reads the members of one JSON object, refusing keys it does not know.
class ObjectReader {
 public:
  static absl::StatusOr<ObjectReader> Open(const JsonValue& value, std::string where,
                                           absl::Span<const absl::string_view> known) {
    if (!value.is_object()) return Invalid(where, "must be a JSON object");
    for (const auto& [key, member] : value.as_object()) {
      bool is_known = false;
      for (absl::string_view k : known) is_known |= key == k;
      if (!is_known) {
        return Invalid(where, absl::StrCat("unknown key \"", absl::CEscape(key),
                                           "\" (known: ", absl::StrJoin(known, ", "), ")"));
      }
    }
    return ObjectReader(value, std::move(where));
  }

  std::string Where(absl::string_view key) const { return absl::StrCat(where_, ".", key); }

  const JsonValue* Find(absl::string_view key) const { return object_->Find(key); }

  absl::StatusOr<std::optional<std::string>> OptionalString(absl::string_view key) const {
    const JsonValue* member = Find(key);
    if (member == nullptr) return std::optional<std::string>();
    if (!member->is_string()) return Invalid(Where(key), "must be a string");
    return std::optional<std::string>(member->as_string());
  }

  absl::StatusOr<std::string> String(absl::string_view key) const {
    absl::StatusOr<std::optional<std::string>> value = OptionalString(key);
    if (!value.ok()) return value.status();
    if (!value->has_value()) return Invalid(Where(key), "is required");
    return **std::move(value);
  }

  absl::StatusOr<std::string> StringOr(absl::string_view key, absl::string_view fallback) const {
    absl::StatusOr<std::optional<std::string>> value = OptionalString(key);
    if (!value.ok()) return value.status();
    return value->value_or(std::string(fallback));
  }

  absl::StatusOr<std::vector<std::string>> Strings(absl::string_view key) const {
    const JsonValue* member = Find(key);
    if (member == nullptr) return Invalid(Where(key), "is required");
    if (!member->is_array()) return Invalid(Where(key), "must be an array of strings");
    std::vector<std::string> strings;
    for (const JsonValue& item : member->as_array()) {
      if (!item.is_string()) return Invalid(Where(key), "must be an array of strings");
      strings.push_back(item.as_string());
    }
    return strings;
  }

  absl::StatusOr<int> IntOr(absl::string_view key, int fallback) const {
    const JsonValue* member = Find(key);
    if (member == nullptr) return fallback;
    if (!member->is_number() || std::trunc(member->as_number()) != member->as_number() ||
        std::abs(member->as_number()) > 1e9) {
      return Invalid(Where(key), "must be an integer");
    }
    return static_cast<int>(member->as_number());
  }

  // RFC 3339; absent means never.
  absl::StatusOr<absl::Time> TimeOrNever(absl::string_view key) const {
    absl::StatusOr<std::optional<std::string>> text = OptionalString(key);
    if (!text.ok()) return text.status();
    if (!text->has_value()) return absl::InfiniteFuture();
    absl::Time time;
    std::string error;
    if (!absl::ParseTime(absl::RFC3339_full, **text, &time, &error)) {
      return Invalid(Where(key), absl::StrCat("not an RFC 3339 time (", error, ")"));
    }
    if (!ExportsAsImported(time)) {
      return Invalid(Where(key), "must be a time of the years 0001 to 9999 in whole microseconds");
    }
    return time;
  }

  // A JSON object member kept as its canonical text; absent means "{}".
  absl::StatusOr<std::string> ObjectText(absl::string_view key) const {
    const JsonValue* member = Find(key);
    if (member == nullptr) return std::string("{}");
    if (!member->is_object()) return Invalid(Where(key), "must be a JSON object");
    return CanonicalJson(*member);
  }

 private:
  ObjectReader(const JsonValue& object, std::string where)
      : object_(&object), where_(std::move(where)) {}

  const JsonValue* object_;
  std::string where_;
};

template <typename T>
absl::StatusOr<T> Named(absl::StatusOr<T> value, absl::string_view where) {
  if (value.ok()) return value;
  return Invalid(where, value.status().message());
}

absl::StatusOr<std::string> TokenHashFromHex(absl::string_view hex, absl::string_view where) {
  if (hex.size() != kTokenHashHexLength) {
    return Invalid(where, absl::StrCat("must be ", kTokenHashHexLength, " hex characters"));
  }
  for (char c : hex) {
    if (!absl::ascii_isxdigit(static_cast<unsigned char>(c))) {
      return Invalid(where, "must be hex");
    }
  }
  return absl::HexStringToBytes(hex);
}

// The policy file that manages the row (written by export only for a managed row), or "".
absl::StatusOr<std::string> ManagerFromJson(const ObjectReader& reader) {
  absl::StatusOr<std::optional<std::string>> manager = reader.OptionalString("managed_by");
  if (!manager.ok()) return manager.status();
  if (!manager->has_value()) return std::string();
  if (absl::Status name = CheckPolicyName(**manager); !name.ok()) {
    return Invalid(reader.Where("managed_by"), name.message());
  }
  return **std::move(manager);
}

// A row read with the policy file that manages it.
template <typename Row>
struct Managed {
  Row row;
  std::string manager;
};

absl::StatusOr<Managed<StoredAgent>> AgentFromJson(const JsonValue& value,
                                                   const std::string& where) {
  std::vector<absl::string_view> known = {"id", "owner", "name"};
  for (const AgentTextColumn<Agent>& text : kAgentTextColumns<Agent>) known.push_back(text.name);
  known.insert(known.end(),
               {"kind", "status", "expires_at", "token_sha256", "token_prefix", "token",
                "previous_token_sha256", "previous_token_expires_at", "managed_by"});
  absl::StatusOr<ObjectReader> reader = ObjectReader::Open(value, where, known);
  if (!reader.ok()) return reader.status();
  StoredAgent stored;
  Agent& agent = stored.agent;
  absl::StatusOr<std::string> id = reader->String("id");
  if (!id.ok()) return id.status();
  agent.id = *std::move(id);
  absl::StatusOr<std::string> owner = reader->String("owner");
  if (!owner.ok()) return owner.status();
  agent.owner = *std::move(owner);
  absl::StatusOr<std::string> name = reader->String("name");
  if (!name.ok()) return name.status();
  agent.name = *std::move(name);
  for (const AgentTextColumn<Agent>& column : kAgentTextColumns<Agent>) {
    absl::StatusOr<std::string> text = reader->StringOr(column.name, "");
    if (!text.ok()) return text.status();
    agent.*column.member = *std::move(text);
  }
  absl::StatusOr<std::string> kind = reader->StringOr("kind", "autonomous");
  if (!kind.ok()) return kind.status();
  absl::StatusOr<AgentKind> parsed_kind = Named(ParseAgentKind(*kind), reader->Where("kind"));
  if (!parsed_kind.ok()) return parsed_kind.status();
  agent.kind = *parsed_kind;
  absl::StatusOr<std::string> status = reader->StringOr("status", "active");
  if (!status.ok()) return status.status();
  absl::StatusOr<AgentStatus> parsed_status =
      Named(ParseAgentStatus(*status), reader->Where("status"));
  if (!parsed_status.ok()) return parsed_status.status();
  agent.status = *parsed_status;
  absl::StatusOr<absl::Time> expires_at = reader->TimeOrNever("expires_at");
  if (!expires_at.ok()) return expires_at.status();
  agent.expires_at = *expires_at;

  absl::StatusOr<std::optional<std::string>> hash_hex = reader->OptionalString("token_sha256");
  if (!hash_hex.ok()) return hash_hex.status();
  absl::StatusOr<std::optional<std::string>> token = reader->OptionalString("token");
  if (!token.ok()) return token.status();
  absl::StatusOr<std::optional<std::string>> prefix = reader->OptionalString("token_prefix");
  if (!prefix.ok()) return prefix.status();
  if (hash_hex->has_value() && token->has_value()) {
    return Invalid(where, "give token or token_sha256, not both");
  }
  if (prefix->has_value() && !hash_hex->has_value()) {
    return Invalid(reader->Where("token_prefix"), "goes with token_sha256 (a token has its own)");
  }
  if (hash_hex->has_value()) {
    absl::StatusOr<std::string> hash = TokenHashFromHex(**hash_hex, reader->Where("token_sha256"));
    if (!hash.ok()) return hash.status();
    stored.token_sha256 = *std::move(hash);
    // Checked with the agent's other fields when the policy is imported.
    agent.token_prefix = prefix->value_or("");
  } else if (token->has_value()) {
    if (absl::Status shape = CheckAgentTokenShape(**token); !shape.ok()) {
      return Invalid(reader->Where("token"), shape.message());
    }
    stored.token_sha256 = Sha256(**token);
    agent.token_prefix = TokenDisplayPrefix(**token);
  }

  // The token a rotation replaced, in its grace period: restored with its expiry.
  absl::StatusOr<std::optional<std::string>> previous_hex =
      reader->OptionalString("previous_token_sha256");
  if (!previous_hex.ok()) return previous_hex.status();
  absl::StatusOr<absl::Time> previous_until = reader->TimeOrNever("previous_token_expires_at");
  if (!previous_until.ok()) return previous_until.status();
  if (previous_hex->has_value() != (*previous_until != absl::InfiniteFuture())) {
    return Invalid(where, "previous_token_sha256 and previous_token_expires_at go together");
  }
  if (previous_hex->has_value()) {
    absl::StatusOr<std::string> previous =
        TokenHashFromHex(**previous_hex, reader->Where("previous_token_sha256"));
    if (!previous.ok()) return previous.status();
    stored.previous_token_sha256 = *std::move(previous);
    stored.previous_token_expires_at = *previous_until;
  }
  absl::StatusOr<std::string> manager = ManagerFromJson(*reader);
  if (!manager.ok()) return manager.status();
  return Managed<StoredAgent>{std::move(stored), *std::move(manager)};
}

absl::StatusOr<Managed<Permission>> PermissionFromJson(const JsonValue& value,
                                                       const std::string& where) {
  absl::StatusOr<ObjectReader> reader = ObjectReader::Open(
      value, where,
      {"id", "agent_id", "resource", "actions", "effect", "constraints", "managed_by"});
  if (!reader.ok()) return reader.status();
  Permission permission;
  absl::StatusOr<std::string> id = reader->String("id");
  if (!id.ok()) return id.status();
  permission.id = *std::move(id);
  absl::StatusOr<std::string> agent_id = reader->String("agent_id");
  if (!agent_id.ok()) return agent_id.status();
  permission.agent_id = *std::move(agent_id);
  absl::StatusOr<std::string> resource = reader->String("resource");
  if (!resource.ok()) return resource.status();
  permission.resource = *std::move(resource);
  absl::StatusOr<std::vector<std::string>> actions = reader->Strings("actions");
  if (!actions.ok()) return actions.status();
  permission.actions = *std::move(actions);
  absl::StatusOr<std::string> effect = reader->StringOr("effect", "allow");
  if (!effect.ok()) return effect.status();
  absl::StatusOr<Effect> parsed_effect = Named(ParseEffect(*effect), reader->Where("effect"));
  if (!parsed_effect.ok()) return parsed_effect.status();
  permission.effect = *parsed_effect;
  absl::StatusOr<std::string> constraints = reader->ObjectText("constraints");
  if (!constraints.ok()) return constraints.status();
  permission.constraints_json = *std::move(constraints);
  absl::StatusOr<std::string> manager = ManagerFromJson(*reader);
  if (!manager.ok()) return manager.status();
  return Managed<Permission>{std::move(permission), *std::move(manager)};
}

absl::StatusOr<Managed<Delegation>> DelegationFromJson(const JsonValue& value,
                                                       const std::string& where) {
  absl::StatusOr<ObjectReader> reader =
      ObjectReader::Open(value, where,
                         {"id", "from_agent_id", "to_agent_id", "permissions", "max_depth",
                          "status", "expires_at", "managed_by"});
  if (!reader.ok()) return reader.status();
  Delegation delegation;
  absl::StatusOr<std::string> id = reader->String("id");
  if (!id.ok()) return id.status();
  delegation.id = *std::move(id);
  absl::StatusOr<std::string> from = reader->String("from_agent_id");
  if (!from.ok()) return from.status();
  delegation.from_agent_id = *std::move(from);
  absl::StatusOr<std::string> to = reader->String("to_agent_id");
  if (!to.ok()) return to.status();
  delegation.to_agent_id = *std::move(to);
  const JsonValue* lent = reader->Find("permissions");
  if (lent == nullptr) return Invalid(reader->Where("permissions"), "is required");
  absl::StatusOr<std::vector<LentPermission>> permissions =
      Named(LentPermissionsFromJson(*lent), where);
  if (!permissions.ok()) return permissions.status();
  delegation.permissions = *std::move(permissions);
  absl::StatusOr<int> max_depth = reader->IntOr("max_depth", 1);
  if (!max_depth.ok()) return max_depth.status();
  delegation.max_depth = *max_depth;
  absl::StatusOr<std::string> status = reader->StringOr("status", "active");
  if (!status.ok()) return status.status();
  absl::StatusOr<DelegationStatus> parsed_status =
      Named(ParseDelegationStatus(*status), reader->Where("status"));
  if (!parsed_status.ok()) return parsed_status.status();
  delegation.status = *parsed_status;
  absl::StatusOr<absl::Time> expires_at = reader->TimeOrNever("expires_at");
  if (!expires_at.ok()) return expires_at.status();
  delegation.expires_at = *expires_at;
  absl::StatusOr<std::string> manager = ManagerFromJson(*reader);
  if (!manager.ok()) return manager.status();
  return Managed<Delegation>{std::move(delegation), *std::move(manager)};
}

absl::StatusOr<RevokedTokenId> RevokedTokenIdFromJson(const JsonValue& json,
                                                      const std::string& where) {
  absl::StatusOr<ObjectReader> reader = ObjectReader::Open(json, where, {"jti", "expires_at"});
  if (!reader.ok()) return reader.status();
  RevokedTokenId revoked;
  absl::StatusOr<std::string> jti = reader->String("jti");
  if (!jti.ok()) return jti.status();
  revoked.jti = *std::move(jti);
  absl::StatusOr<absl::Time> expires_at = reader->TimeOrNever("expires_at");
  if (!expires_at.ok()) return expires_at.status();
  revoked.expires_at = *expires_at;
  return revoked;
}

// Reads the array `key` of `document` with `read`, one element at a time.
template <typename Row, typename Read>
absl::StatusOr<std::vector<Row>> ArrayFromJson(const ObjectReader& document, absl::string_view key,
                                               Read read) {
  std::vector<Row> rows;
  const JsonValue* array = document.Find(key);
  if (array == nullptr) return rows;
  if (!array->is_array()) return Invalid(key, "must be an array");
  for (const JsonValue& item : array->as_array()) {
    absl::StatusOr<Row> row = read(item, absl::StrCat(key, "[", rows.size(), "]"));
    if (!row.ok()) return row.status();
    rows.push_back(*std::move(row));
  }
  return rows;
}

JsonValue StringsToJson(const std::vector<std::string>& strings) {
  JsonValue::Array array;
  for (const std::string& s : strings) array.push_back(JsonValue::String(s));
  return JsonValue::MakeArray(std::move(array));
}

// "managed_by" for a row a policy file manages; nothing for one created at run time, so a
// document of a store without policy files reads as it always did.
void PutManager(JsonValue::Object& object, const std::map<std::string, std::string>& managers,
                const std::string& id) {
  if (auto found = managers.find(id); found != managers.end()) {
    object.emplace("managed_by", JsonValue::String(found->second));
  }
}

void PutTimeUnlessNever(JsonValue::Object& object, absl::string_view key, absl::Time time) {
  if (time == absl::InfiniteFuture()) return;
  object.emplace(std::string(key),
                 JsonValue::String(absl::FormatTime(kUtcTimeFormat, time, absl::UTCTimeZone())));
}

absl::StatusOr<JsonValue> ConstraintsToJson(absl::string_view constraints_json,
                                            absl::string_view where) {
  if (constraints_json.empty()) return JsonValue::MakeObject();
  absl::StatusOr<JsonValue> constraints = ParseJson(constraints_json);
  if (!constraints.ok()) return Invalid(where, constraints.status().message());
  return constraints;
}

}  // namespace

absl::StatusOr<std::string> PolicyToJson(const PolicyContents& policy) {
  JsonValue::Array agents;
  for (const StoredAgent& stored : policy.agents) {
    const Agent& agent = stored.agent;
    JsonValue::Object object;
    object.emplace("id", JsonValue::String(agent.id));
    object.emplace("owner", JsonValue::String(agent.owner));
    object.emplace("name", JsonValue::String(agent.name));
    for (const AgentTextColumn<Agent>& column : kAgentTextColumns<Agent>) {
      const std::string& text = agent.*column.member;
      if (!text.empty()) object.emplace(column.name, JsonValue::String(text));
    }
    object.emplace("kind", JsonValue::String(std::string(AgentKindName(agent.kind))));
    object.emplace("status", JsonValue::String(std::string(AgentStatusName(agent.status))));
    PutTimeUnlessNever(object, "expires_at", agent.expires_at);
    object.emplace("token_sha256", JsonValue::String(HexEncode(stored.token_sha256)));
    if (!agent.token_prefix.empty()) {
      object.emplace("token_prefix", JsonValue::String(agent.token_prefix));
    }
    if (!stored.previous_token_sha256.empty()) {
      object.emplace("previous_token_sha256",
                     JsonValue::String(HexEncode(stored.previous_token_sha256)));
      PutTimeUnlessNever(object, "previous_token_expires_at", stored.previous_token_expires_at);
    }
    PutManager(object, policy.managed_by.agents, agent.id);
    agents.push_back(JsonValue::MakeObject(std::move(object)));
  }
  JsonValue::Array permissions;
  for (const Permission& permission : policy.permissions) {
    absl::StatusOr<JsonValue> constraints =
        ConstraintsToJson(permission.constraints_json, permission.id);
    if (!constraints.ok()) return constraints.status();
    JsonValue::Object object;
    object.emplace("id", JsonValue::String(permission.id));
    object.emplace("agent_id", JsonValue::String(permission.agent_id));
    object.emplace("resource", JsonValue::String(permission.resource));
    object.emplace("actions", StringsToJson(permission.actions));
    object.emplace("effect", JsonValue::String(std::string(EffectName(permission.effect))));
    object.emplace("constraints", *std::move(constraints));
    PutManager(object, policy.managed_by.permissions, permission.id);
    permissions.push_back(JsonValue::MakeObject(std::move(object)));
  }
  JsonValue::Array delegations;
  for (const Delegation& delegation : policy.delegations) {
    absl::StatusOr<JsonValue> lent = LentPermissionsToJson(delegation.permissions);
    if (!lent.ok()) return Invalid(delegation.id, lent.status().message());
    JsonValue::Object object;
    object.emplace("id", JsonValue::String(delegation.id));
    object.emplace("from_agent_id", JsonValue::String(delegation.from_agent_id));
    object.emplace("to_agent_id", JsonValue::String(delegation.to_agent_id));
    object.emplace("permissions", *std::move(lent));
    object.emplace("max_depth", JsonValue::Number(delegation.max_depth));
    object.emplace("status",
                   JsonValue::String(std::string(DelegationStatusName(delegation.status))));
    PutTimeUnlessNever(object, "expires_at", delegation.expires_at);
    PutManager(object, policy.managed_by.delegations, delegation.id);
    delegations.push_back(JsonValue::MakeObject(std::move(object)));
  }
  JsonValue::Array revoked_token_ids;
  for (const RevokedTokenId& revoked : policy.revoked_token_ids) {
    JsonValue::Object object;
    object.emplace("jti", JsonValue::String(revoked.jti));
    PutTimeUnlessNever(object, "expires_at", revoked.expires_at);
    revoked_token_ids.push_back(JsonValue::MakeObject(std::move(object)));
  }
  JsonValue::Object document;
  document.emplace("version", JsonValue::Number(kPolicyVersion));
  document.emplace("agents", JsonValue::MakeArray(std::move(agents)));
  document.emplace("permissions", JsonValue::MakeArray(std::move(permissions)));
  document.emplace("delegations", JsonValue::MakeArray(std::move(delegations)));
  // Left out when there are none, so a document without JWTs reads as it always did.
  if (!revoked_token_ids.empty()) {
    document.emplace("revoked_token_ids", JsonValue::MakeArray(std::move(revoked_token_ids)));
  }
  return CanonicalJson(JsonValue::MakeObject(std::move(document)));
}

absl::StatusOr<PolicyContents> PolicyFromJson(absl::string_view json) {
  // A policy may be large: allow a bigger document than a call's arguments, and no deeper.
  absl::StatusOr<JsonValue> parsed =
      ParseJson(json, JsonLimits{.max_bytes = kMaxPolicyDocumentBytes});
  if (!parsed.ok()) return Invalid("policy", parsed.status().message());
  absl::StatusOr<ObjectReader> document = ObjectReader::Open(
      *parsed, "policy", {"version", "agents", "permissions", "delegations", "revoked_token_ids"});
  if (!document.ok()) return document.status();
  const JsonValue* version = document->Find("version");
  if (version == nullptr || !version->is_number() || version->as_number() != kPolicyVersion) {
    return Invalid("version", absl::StrCat("must be ", kPolicyVersion));
  }
  PolicyContents policy;
  absl::StatusOr<std::vector<Managed<StoredAgent>>> agents =
      ArrayFromJson<Managed<StoredAgent>>(*document, "agents", AgentFromJson);
  if (!agents.ok()) return agents.status();
  for (Managed<StoredAgent>& agent : *agents) {
    if (!agent.manager.empty()) policy.managed_by.agents[agent.row.agent.id] = agent.manager;
    policy.agents.push_back(std::move(agent.row));
  }
  absl::StatusOr<std::vector<Managed<Permission>>> permissions =
      ArrayFromJson<Managed<Permission>>(*document, "permissions", PermissionFromJson);
  if (!permissions.ok()) return permissions.status();
  for (Managed<Permission>& permission : *permissions) {
    if (!permission.manager.empty()) {
      policy.managed_by.permissions[permission.row.id] = permission.manager;
    }
    policy.permissions.push_back(std::move(permission.row));
  }
  absl::StatusOr<std::vector<Managed<Delegation>>> delegations =
      ArrayFromJson<Managed<Delegation>>(*document, "delegations", DelegationFromJson);
  if (!delegations.ok()) return delegations.status();
  for (Managed<Delegation>& delegation : *delegations) {
    if (!delegation.manager.empty()) {
      policy.managed_by.delegations[delegation.row.id] = delegation.manager;
    }
    policy.delegations.push_back(std::move(delegation.row));
  }
  absl::StatusOr<std::vector<RevokedTokenId>> revoked =
      ArrayFromJson<RevokedTokenId>(*document, "revoked_token_ids", RevokedTokenIdFromJson);
  if (!revoked.ok()) return revoked.status();
  policy.revoked_token_ids = *std::move(revoked);
  return policy;
}

absl::StatusOr<std::string> ExportPolicyJson(PolicyAdmin& admin) {
  absl::StatusOr<PolicyContents> policy = admin.ExportPolicy();
  if (!policy.ok()) return policy.status();
  return PolicyToJson(*policy);
}

absl::StatusOr<ImportCounts> ImportPolicyJson(PolicyAdmin& admin, absl::string_view json) {
  absl::StatusOr<PolicyContents> policy = PolicyFromJson(json);
  if (!policy.ok()) return policy.status();
  if (absl::Status imported = admin.ImportPolicy(*policy); !imported.ok()) return imported;
  return ImportCounts{static_cast<int>(policy->agents.size()),
                      static_cast<int>(policy->permissions.size()),
                      static_cast<int>(policy->delegations.size()),
                      static_cast<int>(policy->revoked_token_ids.size())};
}

}  // namespace verdict
