#include "store/postgres/standby_rules.h"

#include <algorithm>
#include <cstdio>

#include "absl/strings/ascii.h"
#include "absl/strings/cord.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/strip.h"

namespace verdict {
namespace {

void SkipSpaces(absl::string_view& text) { text = absl::StripLeadingAsciiWhitespace(text); }

// A standby name: an identifier, a "double-quoted" name ("" stands for one quote) or "*".
absl::StatusOr<std::string> ConsumeName(absl::string_view& text) {
  SkipSpaces(text);
  if (absl::ConsumePrefix(&text, "*")) return std::string("*");
  std::string name;
  if (absl::ConsumePrefix(&text, "\"")) {
    while (true) {
      const size_t quote = text.find('"');
      if (quote == absl::string_view::npos) {
        return absl::InvalidArgumentError("an unterminated quoted standby name");
      }
      absl::StrAppend(&name, text.substr(0, quote));
      text.remove_prefix(quote + 1);
      if (!absl::ConsumePrefix(&text, "\"")) break;
      name.push_back('"');
    }
  } else {
    size_t length = 0;
    while (length < text.size() &&
           (absl::ascii_isalnum(text[length]) || text[length] == '_' || text[length] == '$' ||
            static_cast<unsigned char>(text[length]) >= 0x80)) {
      ++length;
    }
    name = std::string(text.substr(0, length));
    text.remove_prefix(length);
  }
  if (name.empty()) return absl::InvalidArgumentError("a standby name is missing");
  return name;
}

absl::StatusOr<std::vector<std::string>> ConsumeNames(absl::string_view& text) {
  std::vector<std::string> names;
  while (true) {
    absl::StatusOr<std::string> name = ConsumeName(text);
    if (!name.ok()) return name.status();
    names.push_back(*std::move(name));
    SkipSpaces(text);
    if (!absl::ConsumePrefix(&text, ",")) return names;
  }
}

bool SameName(absl::string_view a, absl::string_view b) { return absl::EqualsIgnoreCase(a, b); }

// pg_settings sources every writer's session gets: the server's own, and "global" (ALTER ROLE ALL
// SET, which a role's or database's entry would override: those are refused apart, as
// lowering_overrides). The others ("user", "database", "database user", "client", "session",
// ...) may be the reading session's own.
bool ServerWideSource(absl::string_view source) {
  for (absl::string_view server_wide :
       {"default", "configuration file", "command line", "environment variable", "global"}) {
    if (source == server_wide) return true;
  }
  return false;
}

constexpr char kReasonPayload[] = "verdict.dev/standby-refusal-reason";

}  // namespace

absl::Status Refusal(absl::StatusCode code, absl::string_view reason, absl::string_view message) {
  absl::Status refused(code, message);
  refused.SetPayload(kReasonPayload, absl::Cord(reason));
  return refused;
}

std::string RefusalReason(const absl::Status& judged) {
  if (judged.ok()) return "usable";
  if (auto reason = judged.GetPayload(kReasonPayload)) {
    return std::string(*reason);
  }
  return absl::StatusCodeToString(judged.code());
}

absl::StatusOr<SynchronousStandbys> ParseSynchronousStandbyNames(absl::string_view text) {
  SynchronousStandbys parsed;
  SkipSpaces(text);
  text = absl::StripTrailingAsciiWhitespace(text);
  if (text.empty()) return parsed;
  absl::string_view rest = text;
  bool has_count = false;
  // "FIRST n (...)", "ANY n (...)", "n (...)"; anything else is a bare list.
  for (const auto& [keyword, method] : {std::pair{"first", SynchronousStandbys::Method::kFirst},
                                        std::pair{"any", SynchronousStandbys::Method::kAny}}) {
    const size_t length = absl::string_view(keyword).size();
    if (rest.size() > length && absl::EqualsIgnoreCase(rest.substr(0, length), keyword) &&
        absl::ascii_isspace(rest[length])) {
      parsed.method = method;
      rest.remove_prefix(length);
      SkipSpaces(rest);
      break;
    }
  }
  size_t digits = 0;
  while (digits < rest.size() && absl::ascii_isdigit(rest[digits])) ++digits;
  if (digits > 0) {
    absl::string_view after = rest.substr(digits);
    SkipSpaces(after);
    if (absl::StartsWith(after, "(")) {
      if (!absl::SimpleAtoi(rest.substr(0, digits), &parsed.count)) {
        return absl::InvalidArgumentError("the number of synchronous standbys is out of range");
      }
      rest = after.substr(1);
      has_count = true;
    }
  }
  if (!has_count) {
    rest = text;
    parsed.method = SynchronousStandbys::Method::kFirst;
    parsed.count = 1;
  }
  absl::StatusOr<std::vector<std::string>> names = ConsumeNames(rest);
  if (!names.ok()) return names.status();
  SkipSpaces(rest);
  if (has_count && !absl::ConsumePrefix(&rest, ")")) {
    return absl::InvalidArgumentError("the list of standby names is not closed with \")\"");
  }
  SkipSpaces(rest);
  if (!rest.empty()) {
    return absl::InvalidArgumentError(absl::StrCat("unexpected \"", rest, "\""));
  }
  if (parsed.count < 1) {
    return absl::InvalidArgumentError("the number of synchronous standbys must be at least 1");
  }
  parsed.names = *std::move(names);
  return parsed;
}

absl::StatusOr<SynchronousStandbys> PrimaryWaitsForEveryListedStandby(const PrimaryFacts& primary) {
  if (primary.in_recovery) {
    return Refusal(absl::StatusCode::kFailedPrecondition, "primary is a standby",
                   "the --db server is itself a standby");
  }
  if (primary.synchronous_commit != "remote_apply") {
    return Refusal(
        absl::StatusCode::kFailedPrecondition, "synchronous_commit is not remote_apply",
        absl::StrCat("the primary's synchronous_commit is '", primary.synchronous_commit,
                     "', not 'remote_apply': a commit may return before a standby applied it"));
  }
  if (!ServerWideSource(primary.synchronous_commit_source)) {
    return Refusal(
        absl::StatusCode::kFailedPrecondition, "synchronous_commit is not server-wide",
        absl::StrCat(
            "the primary's synchronous_commit is 'remote_apply' only from source '",
            primary.synchronous_commit_source,
            "', not server-wide: verdict's own role, database or connection sets it, and other "
            "writers may commit with the server's setting (set it in postgresql.conf or with ALTER "
            "SYSTEM, and remove it from verdict's role and connection string)"));
  }
  if (primary.lowering_overrides > 0) {
    return Refusal(
        absl::StatusCode::kFailedPrecondition, "synchronous_commit is lowered",
        "a role or database setting (pg_db_role_setting) sets synchronous_commit to something "
        "other than 'remote_apply': some writers' commits may return before a standby applied "
        "them");
  }
  absl::StatusOr<SynchronousStandbys> quorum =
      ParseSynchronousStandbyNames(primary.synchronous_standby_names);
  if (!quorum.ok()) {
    return Refusal(absl::StatusCode::kFailedPrecondition,
                   "synchronous_standby_names is not understood",
                   absl::StrCat("synchronous_standby_names '", primary.synchronous_standby_names,
                                "' is not understood: ", quorum.status().message()));
  }
  if (quorum->names.empty()) {
    return Refusal(absl::StatusCode::kFailedPrecondition, "synchronous_standby_names is empty",
                   "synchronous_standby_names is empty: the primary waits for no standby");
  }
  for (size_t i = 0; i < quorum->names.size(); ++i) {
    if (quorum->names[i] == "*") {
      return Refusal(
          absl::StatusCode::kFailedPrecondition, "synchronous_standby_names lists *",
          "synchronous_standby_names lists '*': any standby may answer for a commit, so a named "
          "one may lag");
    }
    for (size_t j = 0; j < i; ++j) {
      if (SameName(quorum->names[i], quorum->names[j])) {
        return Refusal(
            absl::StatusCode::kFailedPrecondition, "synchronous_standby_names lists a name twice",
            absl::StrCat("synchronous_standby_names lists '", quorum->names[i], "' twice"));
      }
    }
  }
  if (quorum->count != static_cast<int>(quorum->names.size())) {
    return Refusal(
        absl::StatusCode::kFailedPrecondition, "the quorum may skip a listed standby",
        absl::StrCat(
            "synchronous_standby_names '", primary.synchronous_standby_names,
            "': a commit waits for ", quorum->count, " of the ", quorum->names.size(),
            " standbys listed, so a listed standby may lag behind acknowledged commits (list only "
            "the standbys verdict reads from, with FIRST n or ANY n, n = how many are listed)"));
  }
  return quorum;
}

absl::Status JudgeStandby(const PrimaryFacts& primary, const SynchronousStandbys& quorum,
                          const StandbyFacts& standby, int64_t required_lsn) {
  if (!standby.in_recovery) {
    return Refusal(absl::StatusCode::kFailedPrecondition, "not a standby",
                   "not a standby (pg_is_in_recovery() is false)");
  }
  if (standby.cluster_name.empty()) {
    return Refusal(
        absl::StatusCode::kFailedPrecondition, "no cluster_name",
        "it has no cluster_name: set it to the name synchronous_standby_names gives it (its WAL "
        "receiver's application_name)");
  }
  const std::string& name = standby.cluster_name;
  if (std::none_of(quorum.names.begin(), quorum.names.end(),
                   [&](const std::string& listed) { return SameName(listed, name); })) {
    return Refusal(absl::StatusCode::kFailedPrecondition, "not listed",
                   absl::StrCat("'", name, "' is not in synchronous_standby_names '",
                                primary.synchronous_standby_names, "'"));
  }
  const PrimaryFacts::Sender* sender = nullptr;
  for (const PrimaryFacts::Sender& candidate : primary.senders) {
    if (!SameName(candidate.name, name)) continue;
    if (sender != nullptr) {
      return Refusal(absl::StatusCode::kFailedPrecondition, "several senders with its name",
                     absl::StrCat("several standbys connect to the primary as '", name, "'"));
    }
    sender = &candidate;
  }
  if (sender == nullptr) {
    return Refusal(
        absl::StatusCode::kFailedPrecondition, "not connected",
        absl::StrCat("'", name, "' is not connected to the primary (pg_stat_replication)"));
  }
  if (sender->sync_state.empty()) {
    return Refusal(
        absl::StatusCode::kFailedPrecondition, "sync_state hidden",
        "verdict's role may not see pg_stat_replication's sync_state: grant it pg_read_all_stats");
  }
  if (sender->state != "streaming" ||
      (sender->sync_state != "sync" && sender->sync_state != "quorum")) {
    return Refusal(absl::StatusCode::kFailedPrecondition, "not a streaming synchronous standby",
                   absl::StrCat("'", name, "' is ", sender->state, " with sync_state ",
                                sender->sync_state, ", not a streaming synchronous standby"));
  }
  if (standby.receiver_status.empty()) {
    return Refusal(absl::StatusCode::kFailedPrecondition, "no WAL receiver",
                   "it shows no WAL receiver: it has none, or verdict's role may not see "
                   "pg_stat_wal_receiver's status (grant it pg_read_all_stats)");
  }
  if (standby.receiver_status != "streaming") {
    return Refusal(
        absl::StatusCode::kFailedPrecondition, "WAL receiver not streaming",
        absl::StrCat("its WAL receiver is '", standby.receiver_status, "', not streaming"));
  }
  if (!standby.replay_lsn.has_value() || *standby.replay_lsn < required_lsn) {
    return Refusal(
        absl::StatusCode::kFailedPrecondition, "behind",
        absl::StrCat("it is behind: replayed up to ",
                     standby.replay_lsn.has_value() ? FormatLsn(*standby.replay_lsn) : "nothing",
                     ", the primary had written up to ", FormatLsn(required_lsn)));
  }
  return absl::OkStatus();
}

int64_t RequiredReplayLsn(const std::optional<PrimaryFacts>& previous, bool usable_at_previous,
                          const PrimaryFacts& now) {
  const bool steady = previous.has_value() && usable_at_previous &&
                      previous->in_recovery == now.in_recovery &&
                      previous->synchronous_commit == now.synchronous_commit &&
                      previous->synchronous_commit_source == now.synchronous_commit_source &&
                      previous->lowering_overrides == now.lowering_overrides &&
                      previous->synchronous_standby_names == now.synchronous_standby_names;
  return steady ? previous->wal_lsn : now.wal_lsn;
}

std::string FormatLsn(int64_t lsn) {
  char text[32];
  std::snprintf(text, sizeof text, "%X/%X", static_cast<unsigned>(static_cast<uint64_t>(lsn) >> 32),
                static_cast<unsigned>(static_cast<uint64_t>(lsn) & 0xffffffffu));
  return text;
}

}  // namespace verdict
