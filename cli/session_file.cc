#include "cli/session_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"

namespace verdict {
namespace cli {
namespace {

constexpr size_t kMaxSessionFileBytes = 4096;

std::string Parent(const std::string& path) {
  const size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

absl::Status Refused(const std::string& what, absl::string_view why) {
  return absl::FailedPreconditionError(absl::StrCat(what, ": ", why));
}

// Makes `directory` (0700) when missing; true in `*made` when this call made it.
absl::Status MakeDirectory(const std::string& directory, bool* made) {
  *made = false;
  if (mkdir(directory.c_str(), 0700) == 0) {
    *made = true;
    return absl::OkStatus();
  }
  if (errno == EEXIST) return absl::OkStatus();
  return Refused(directory, std::strerror(errno));
}

// The session's own directory must be this user's alone, unless this process just made it.
absl::Status CheckPrivateDirectory(const std::string& directory) {
  struct stat info;
  if (lstat(directory.c_str(), &info) != 0) return Refused(directory, std::strerror(errno));
  if (!S_ISDIR(info.st_mode)) return Refused(directory, "not a directory");
  if (info.st_uid != geteuid()) return Refused(directory, "belongs to another user");
  if ((info.st_mode & 077) != 0) {
    return Refused(directory, "other users may use it (mode 0" +
                                  absl::StrCat(absl::Hex(info.st_mode & 0777)) +
                                  "): a session token is a credential; chmod 700 it");
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::string> SessionFilePath(
    const std::function<std::optional<std::string>(const std::string&)>& getenv) {
  if (std::optional<std::string> config = getenv("XDG_CONFIG_HOME");
      config.has_value() && !config->empty() && (*config)[0] == '/') {
    return absl::StrCat(*config, "/verdict/session");
  }
  if (std::optional<std::string> home = getenv("HOME"); home.has_value() && !home->empty()) {
    return absl::StrCat(*home, "/.config/verdict/session");
  }
  return absl::FailedPreconditionError(
      "neither XDG_CONFIG_HOME nor HOME is set: nowhere to keep the session");
}

absl::Status WriteSessionFile(const std::string& path, const StoredSession& session) {
  const std::string directory = Parent(path);
  bool made_parent = false;
  if (absl::Status status = MakeDirectory(Parent(directory), &made_parent); !status.ok()) {
    return status;
  }
  bool made = false;
  if (absl::Status status = MakeDirectory(directory, &made); !status.ok()) return status;
  if (absl::Status status = CheckPrivateDirectory(directory); !status.ok()) return status;
  const std::string text =
      absl::StrCat("admin_addr=", session.admin_addr, "\ntoken=", session.token,
                   "\nsession_id=", session.session_id, "\nprincipal=", session.principal,
                   "\nexpires_at=", absl::ToUnixSeconds(session.expires_at), "\n");
  const std::string temporary = path + ".new";
  unlink(temporary.c_str());
  const int fd =
      open(temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) return Refused(temporary, std::strerror(errno));
  const bool written = write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size()) &&
                       fchmod(fd, 0600) == 0 && fsync(fd) == 0;
  close(fd);
  if (!written || rename(temporary.c_str(), path.c_str()) != 0) {
    const std::string error = std::strerror(errno);
    unlink(temporary.c_str());
    return Refused(path, error);
  }
  return absl::OkStatus();
}

absl::StatusOr<std::optional<StoredSession>> ReadSessionFile(const std::string& path) {
  const int fd = open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT) return std::optional<StoredSession>();
    return Refused(path, std::strerror(errno));
  }
  struct stat info;
  std::string text(kMaxSessionFileBytes, '\0');
  ssize_t size = -1;
  if (fstat(fd, &info) == 0 && info.st_uid == geteuid() && (info.st_mode & 077) == 0) {
    size = read(fd, text.data(), text.size());
  }
  close(fd);
  if (size < 0) return Refused(path, "not this user's alone (0600), or unreadable");
  text.resize(size);
  StoredSession session;
  int64_t expires_at = 0;
  for (absl::string_view line : absl::StrSplit(text, '\n', absl::SkipEmpty())) {
    const std::pair<absl::string_view, absl::string_view> kv = absl::StrSplit(line, '=');
    if (kv.first == "admin_addr") session.admin_addr = std::string(line.substr(11));
    if (kv.first == "token") session.token = std::string(kv.second);
    if (kv.first == "session_id") session.session_id = std::string(kv.second);
    if (kv.first == "principal") session.principal = std::string(kv.second);
    if (kv.first == "expires_at" && !absl::SimpleAtoi(kv.second, &expires_at)) expires_at = 0;
  }
  if (session.admin_addr.empty() || session.token.empty() || expires_at <= 0) {
    return Refused(path, "not a session file: run verdict login again");
  }
  session.expires_at = absl::FromUnixSeconds(expires_at);
  return std::optional<StoredSession>(std::move(session));
}

absl::Status DeleteSessionFile(const std::string& path) {
  if (unlink(path.c_str()) != 0 && errno != ENOENT) return Refused(path, std::strerror(errno));
  return absl::OkStatus();
}

}  // namespace cli
}  // namespace verdict
